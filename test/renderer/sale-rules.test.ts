// Rule 2 of issue 14 at the sale store: every refused input says why (the text the screen puts
// next to the field, aria-describedby), and the F2 limit is said before the engine refuses it.
import { beforeEach, describe, expect, it } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { useSale } from '../../src-renderer/features/sale/store';
import { memoryStore } from '../../src-renderer/platform/storage';
import { fakeEngine } from './support/fake-engine';

const initial = useSale.getState();

function typeLine(descripcion: string, cantidad: string, precio: string, tipoIva = '21'): boolean {
  useSale.getState().setDraft({ descripcion, cantidad, precio, tipoIva });
  return useSale.getState().addLine();
}

beforeEach(() => {
  useSale.setState({ ...initial, lines: [], mode: { kind: 'venta' }, error: undefined, draftError: undefined, draftMotivo: undefined });
  useSession.setState({ lang: 'es', store: memoryStore() });
});

describe('A refused field says why, in the staff’s language', () => {
  it.each([
    ['', '1', '2,00', '21', 'descripcion', 'Escriba una descripción.'],
    ['Café', 'abc', '2,00', '21', 'cantidad', 'Solo cifras, con coma para los decimales (por ejemplo 1.234,56).'],
    ['Café', '0', '2,00', '21', 'cantidad', 'La cantidad no puede ser 0.'],
    ['Café', '-2', '2,00', '21', 'cantidad', 'La cantidad debe ser mayor que 0 (para devolver, use Devolver en Facturas).'],
    ['Café', '1', '1e3', '21', 'precio', 'Solo cifras, con coma para los decimales (por ejemplo 1.234,56).'],
    ['Café', '1', '2,555', '21', 'precio', 'Como mucho 2 decimales.'],
    ['Café', '1', '99999999999', '21', 'precio', 'Número demasiado grande (como mucho 9 cifras antes de la coma).'],
    ['Café', '1', '2,00', '16', 'tipoIva', 'Tipo de IVA no válido: use 21, 10, 5, 4 o 0 (↑/↓ para elegir).'],
  ])('«%s» × «%s» at «%s», IVA %s → %s', (d, c, p, iva, campo, motivo) => {
    expect(typeLine(d, c, p, iva)).toBe(false);
    expect(useSale.getState().draftError).toBe(campo);
    expect(useSale.getState().draftMotivo).toBe(motivo);
    expect(useSale.getState().lines).toEqual([]);
  });

  it('in Basque and English too', () => {
    useSession.setState({ lang: 'eu' });
    typeLine('Kafea', '0', '2', '21');
    expect(useSale.getState().draftMotivo).toBe('Kopurua ezin da 0 izan.');
    useSession.setState({ lang: 'en' });
    typeLine('Coffee', '1', 'x', '21');
    expect(useSale.getState().draftMotivo).toMatch(/^Digits only/);
  });

  it('typing again clears the reason; a good line is added with the Spanish form read right', () => {
    typeLine('Café', '1', 'x');
    useSale.getState().setDraft({ precio: '1.234,56' });
    expect(useSale.getState().draftMotivo).toBeUndefined();
    expect(useSale.getState().addLine()).toBe(true);
    expect(useSale.getState().lines[0]).toMatchObject({ descripcion: 'Café', cantidad: '1', precio: '1234.56', tipoIva: '21' });
  });

  it('a description longer than 120 characters is kept to 120 (the screen counts and warns before)', () => {
    typeLine('x'.repeat(130), '1', '1');
    expect(useSale.getState().lines[0]?.descripcion).toHaveLength(120);
  });
});

describe('The F2 limit (3.000 €) is said while the sale is built, not by the engine at Cobrar', () => {
  it('Cobrar over 3.000 € as F2 sends nothing and says to press F4', async () => {
    const { client, calls } = fakeEngine(() => undefined);
    useSession.setState({ client, emisor: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' }, entorno: 'test', idMaquina: 'WEB-1' });
    typeLine('Ordenador', '1', '3.500,00');
    await useSale.getState().complete();
    expect(calls).toEqual([]);
    expect(useSale.getState().error?.mensaje).toBe('Más de 3.000 €: pulse F4 para una factura completa con los datos del cliente.');
  });

  it('an invalid customer NIF on an F1 is explained without the validator’s English', async () => {
    const { client, calls } = fakeEngine(() => undefined);
    useSession.setState({ client, emisor: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' }, entorno: 'test', idMaquina: 'WEB-1' });
    typeLine('Ordenador', '1', '3.500,00');
    useSale.getState().toggleCliente(true);
    useSale.getState().setCliente({ nif: 'B12345672', nombre: 'CLIENTE SL' });
    await useSale.getState().complete();
    expect(calls).toEqual([]);
    expect(useSale.getState().error?.mensaje).toBe('NIF no válido: el último carácter debería ser 4, no 2: revise lo tecleado');
  });

  it('an engine refusal at Cobrar keeps the engine text as the detail', async () => {
    const { client } = fakeEngine(() => ({ status: 400, body: { code: 'VALIDATION_ERROR', message: 'invalid NIF: CIF control must be the digit 4', campo: 'destinatario.nif' } }));
    useSession.setState({ client, emisor: { nif: 'B12345674', nombre: 'DEMO', hacienda: 'verifactu' }, entorno: 'test', idMaquina: 'WEB-1', settings: { ...useSession.getState().settings, serie: 'TX-' } });
    typeLine('Café', '1', '1,50');
    await useSale.getState().complete();
    expect(useSale.getState().error).toMatchObject({
      mensaje: 'No se pudo registrar la venta: El NIF del cliente no es válido: revise las letras y las cifras.',
      detalle: 'VALIDATION_ERROR · invalid NIF: CIF control must be the digit 4 · (destinatario.nif)',
    });
  });
});
