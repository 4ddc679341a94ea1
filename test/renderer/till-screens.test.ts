// Issue 29 at the stores: fields checked as Enter leaves them, the sale being built kept per till,
// actions open only where the engine accepts them (and why not), rejections and refusals with a
// next step, plural forms, till names told apart, one F4 message.
import { beforeEach, describe, expect, it } from 'vitest';
import { explainError, explainRechazo } from '../../src-renderer/api/problems';
import { ApiError } from '../../src-renderer/api/engine-client';
import { engineChanged, onEngineChange } from '../../src-renderer/app/engine-events';
import { useSession } from '../../src-renderer/app/session';
import { nombreLibre, nombreUsado } from '../../src-renderer/features/device/store';
import { accionesDe, esFinal, estadoMostrado } from '../../src-renderer/features/invoices/estado';
import { descripcionVisible } from '../../src-renderer/features/invoices/descripcion';
import { loadSaleDraft } from '../../src-renderer/features/sale/sale-draft';
import { buildReceipt } from '../../src-renderer/features/sale/receipt-model';
import { useSale } from '../../src-renderer/features/sale/store';
import { autoridadesCaidas, autoridadesVista, errorVigente } from '../../src-renderer/features/sync/store';
import { translate } from '../../src-renderer/i18n';
import { memoryStore, type KeyValueStore } from '../../src-renderer/platform/storage';
import { cola as idleCola } from './support/sync-fixtures';

const initial = useSale.getState();
let store: KeyValueStore;

beforeEach(() => {
  store = memoryStore();
  useSession.setState({ lang: 'es', store, idMaquina: 'WEB-AAAAAAAAAA', state: 'ready' });
  useSale.setState({ ...initial, lines: [], mode: { kind: 'venta' }, error: undefined, draftError: undefined, draftMotivo: undefined, ivaHeredado: undefined });
});

describe('Each field of the entry line is checked as Enter leaves it', () => {
  it.each([['abc'], ['2,5,0'], ['-3']])('price «%s» is refused in the price field itself', (precio) => {
    useSale.getState().setDraft({ descripcion: 'Café', cantidad: '1', precio });
    expect(useSale.getState().checkField('precio')).toBe(false);
    expect(useSale.getState().draftError).toBe('precio');
    expect(useSale.getState().draftMotivo).toMatch(/^Solo cifras/);
  });

  it('a good price passes; the VAT rate taken over from the previous line is said, until changed', () => {
    useSale.getState().setDraft({ descripcion: 'Café', cantidad: '1', precio: '1,50', tipoIva: '10' });
    expect(useSale.getState().checkField('precio')).toBe(true);
    expect(useSale.getState().addLine()).toBe(true);
    expect(useSale.getState().draft.tipoIva).toBe('10');
    expect(useSale.getState().ivaHeredado).toBe('10');
    useSale.getState().setDraft({ tipoIva: '21' });
    expect(useSale.getState().ivaHeredado).toBeUndefined();
  });
});

describe('The sale being built survives a reload (kept per till until completed or cleared)', () => {
  it('three lines and a customer are kept, restored, and dropped once cleared', () => {
    const s = () => useSale.getState();
    for (const [d, p] of [['Café', '1,50'], ['Tostada', '2,50'], ['Zumo', '3']] as const) {
      s().setDraft({ descripcion: d, cantidad: '1', precio: p, tipoIva: '10' });
      s().addLine();
    }
    s().toggleCliente(true);
    s().setCliente({ nif: '78901234X', nombre: 'LOPEZ AGIRRE ANE', direccion: 'Calle Mayor 1' });
    expect(loadSaleDraft(store, 'WEB-AAAAAAAAAA')?.lines).toHaveLength(3);
    // Another till on the same browser profile keeps its own.
    expect(loadSaleDraft(store, 'WEB-BBBBBBBBBB')).toBeUndefined();
    // "Reload": the page starts empty (nothing is kept before the till is ready), the kept draft comes back.
    useSession.setState({ state: 'loading' });
    useSale.setState({ ...initial, lines: [], cliente: { nif: '', nombre: '', direccion: '' }, clienteAbierto: false, tipoFactura: 'F2' });
    useSession.setState({ state: 'ready' });
    s().restore();
    expect(s().lines.map((l) => l.descripcion)).toEqual(['Café', 'Tostada', 'Zumo']);
    expect(s().cliente).toEqual({ nif: '78901234X', nombre: 'LOPEZ AGIRRE ANE', direccion: 'Calle Mayor 1' });
    expect(s().tipoFactura).toBe('F1');
    expect(s().aviso).toBe('Se ha recuperado la venta que estaba a medias.');
    s().clear();
    expect(loadSaleDraft(store, 'WEB-AAAAAAAAAA')).toBeUndefined();
  });
});

describe('One F4 message: the F2 limit refused, then F4 opens the customer and the refusal goes', () => {
  it('clears the limit refusal when the customer opens', () => {
    useSale.setState({ error: { mensaje: 'x', campo: 'limiteF2' } });
    useSale.getState().toggleCliente(true);
    expect(useSale.getState().error).toBeUndefined();
    expect(useSale.getState().tipoFactura).toBe('F1');
  });
});

const detalle = (factura: Record<string, unknown>, registros: { tipo: string; estado: string; estadoEnvioFinal?: string }[]) => ({ factura, registros });

describe('Actions open only where the engine accepts them, and say why not', () => {
  it('a registered F1: cancel yes; correct no (not rejected); refund no (R5 corrects F2)', () => {
    const a = accionesDe(detalle({ estadoFactura: 'registrada', tipoFactura: 'F1' }, [{ tipo: 'alta', estado: 'aceptada' }]));
    expect(a.anular.ok).toBe(true);
    expect(a.subsanar).toEqual({ ok: false, motivo: 'accion.soloRechazada' });
    expect(a.devolver).toEqual({ ok: false, motivo: 'accion.soloF2' });
    expect(translate('es', 'accion.soloF2')).toContain('R1');
  });

  it('a rejected then corrected (registered) invoice: no second correction', () => {
    const d = detalle({ estadoFactura: 'registrada', tipoFactura: 'F2' }, [
      { tipo: 'alta', estado: 'rechazada', estadoEnvioFinal: 'rechazada' },
      { tipo: 'subsanacion', estado: 'aceptada' },
    ]);
    expect(estadoMostrado(d)).toBe('registrada');
    expect(accionesDe(d).subsanar.ok).toBe(false);
    expect(accionesDe(d).devolver.ok).toBe(true);
  });

  it('rejected: correct only; a cancellation on its way: nothing but waiting, and it is not final', () => {
    const rech = accionesDe(detalle({ estadoEnvio: 'rechazada', tipoFactura: 'F2' }, [{ tipo: 'alta', estado: 'rechazada' }]));
    expect([rech.anular.ok, rech.subsanar.ok, rech.devolver.ok]).toEqual([false, true, false]);
    const d = detalle({ estadoFactura: 'registrada', tipoFactura: 'F2' }, [{ tipo: 'alta', estado: 'aceptada' }, { tipo: 'anulacion', estado: 'pendiente' }]);
    expect(estadoMostrado(d)).toBe('anulacion_pendiente');
    expect(esFinal(estadoMostrado(d))).toBe(false);
    expect(accionesDe(d).anular).toEqual({ ok: false, motivo: 'accion.anulacionEnCurso' });
  });
});

describe('Every rejection says what to do next; the raw text is the technical detail', () => {
  it.each([
    ['verifactu', '1100', 'Valor o tipo incorrecto del campo.', /^La autoridad rechazó un dato de la factura\. Qué hacer: pulse «Subsanar»/],
    ['verifactu', '1109', 'El NIF no está identificado en el censo de la AEAT.', /^La AEAT no encuentra ese NIF/],
    ['verifactu', '2000', 'El cálculo de la huella suministrada es incorrecta.', /avise a soporte técnico/],
    ['verifactu', '4102', 'El XML no cumple el esquema.', /^La autoridad rechazó el envío entero/],
    ['ticketbai', 'B4_2000000', 'Falta un dato obligatorio.', /^La autoridad rechazó un dato/],
    ['ticketbai', '002', 'El mensaje no cumple el esquema XSD', /^La autoridad rechazó el envío entero/],
  ] as const)('%s %s', (sistema, codigo, texto, re) => {
    const p = explainRechazo('es', sistema, codigo, texto);
    expect(p.mensaje).toMatch(re);
    expect(p.detalle).toBe(`${codigo} ${texto}`);
  });

  it('in Basque and English, never the AEAT’s Spanish', () => {
    expect(explainRechazo('eu', 'verifactu', '1100', 'Valor o tipo incorrecto del campo.').mensaje).toMatch(/^Agintaritzak/);
    expect(explainRechazo('en', 'verifactu', '1100', 'Valor o tipo incorrecto del campo.').mensaje).toMatch(/^The authority rejected/);
  });

  it('a duplicate till name (409 DEVICE_LABEL_TAKEN) says to choose another', () => {
    const error = new ApiError(409, { code: 'DEVICE_LABEL_TAKEN', message: 'Ya hay otro…', campo: 'etiqueta' }, 'Ya hay otro…');
    expect(explainError('es', error).mensaje).toMatch(/^Ya hay otra caja activa con ese nombre/);
  });
});

describe('Words', () => {
  it('plural forms by Intl.PluralRules: one line, two lines', () => {
    expect(translate('es', 'venta.confirmarVaciar', { n: 1 })).toBe('¿Vaciar la venta? Se quitará su línea.');
    expect(translate('es', 'venta.confirmarVaciar', { n: 2 })).toBe('¿Vaciar la venta? Se quitarán sus 2 líneas.');
    expect(translate('en', 'sync.nCadenas', { n: 1 })).toBe('1 chain');
    expect(translate('es', 'sync.vaciaConRechazos', { n: 1 })).toContain('queda 1 factura rechazada');
  });

  it('«Euskara» everywhere; our generated descriptions in the staff’s language; a refund’s ticket does not thank for a purchase', () => {
    expect(translate('es', 'ticket.eu')).toBe('Euskara');
    expect(translate('eu', 'registro.alta')).not.toBe('Alta');
    expect(descripcionVisible('Venta: 1× Zumo', (k) => translate('en', k))).toBe('Sale: 1× Zumo');
    expect(descripcionVisible('Devolución: -1× Zumo', (k) => translate('eu', k))).toBe('Itzulketa: -1× Zumo');
    expect(descripcionVisible('Reparación', (k) => translate('en', k))).toBe('Reparación');
    const base = { ancho: 80 as const, idioma: 'es' as const, emisor: { nif: 'B1', nombre: 'X' }, numeroFactura: 'T-1', fechaExpedicion: '01-01-2026', lines: [], qr: { sistema: 'verifactu' as const, url: 'u' }, gracias: true };
    expect(buildReceipt({ ...base, tipoFactura: 'F2' }).pie).toBe('Gracias por su compra');
    expect(buildReceipt({ ...base, tipoFactura: 'R5' }).pie).toBe('Devolución realizada');
  });

  it('till names: a taken one is found (any case) and a free one offered', () => {
    const cajas = [
      { etiqueta: 'Caja 1', activo: true },
      { etiqueta: 'Caja 2', activo: true },
      { etiqueta: 'Mostrador', activo: false },
    ];
    expect(nombreUsado(cajas, ' caja 1 ')).toBe(true);
    expect(nombreUsado(cajas, 'Mostrador')).toBe(false);
    expect(nombreLibre(cajas, 'Caja 1')).toBe('Caja 3');
    expect(nombreLibre([{ etiqueta: 'Bar', activo: true }], 'Bar')).toBe('Bar 2');
  });
});

describe('One source of truth: every mutation refreshes every subscribed view', () => {
  it('engineChanged calls each listener, one failing never stops the others', async () => {
    const seen: string[] = [];
    const off1 = onEngineChange(() => {
      throw new Error('boom');
    });
    const off2 = onEngineChange(async () => {
      seen.push('b');
    });
    engineChanged();
    await Promise.resolve();
    expect(seen).toEqual(['b']);
    off1();
    off2();
    engineChanged();
    expect(seen).toEqual(['b']);
  });
});

describe('Sync: the outage known before a send fails; an error got past is not news', () => {
  const base = {
    pausado: { test: false, live: false },
    porEstadoEnvio: { test: {}, live: {} },
    rechazados: { test: 0, live: 0 },
    porDispositivo: [],
  };
  /** A queue whose last attempt failed (read ECONNRESET) unless `extra` says otherwise. */
  const cola = (extra: Parameters<typeof idleCola>[0]) => idleCola({ ultimoError: 'read ECONNRESET', ultimoErrorEn: '2026-11-25T10:00:00.000Z', ...extra });

  it('the probe says AEAT is down before any queue has failed; its «up» wins over an old failed attempt', () => {
    const sinEnvios = { ...base, colas: [], autoridades: [] };
    const caida = { entorno: 'test' as const, autoridades: [{ autoridad: 'aeat', entorno: 'test' as const, alcanzable: false, comprobadoEn: '2026-11-25T10:00:00.000Z' }] };
    expect(autoridadesCaidas(sinEnvios, 'test', caida)).toEqual(['aeat']);
    const fallida = { ...base, colas: [cola({ alcanzable: false, fallosSeguidos: 2 })], autoridades: [{ autoridad: 'aeat', entorno: 'test' as const, alcanzable: false }] };
    const arriba = { ...caida, autoridades: [{ ...caida.autoridades[0]!, alcanzable: true }] };
    expect(autoridadesCaidas(fallida, 'test', arriba)).toEqual([]);
    // Without the probe (an older engine): the queues' last attempt.
    expect(autoridadesCaidas(fallida, 'test')).toEqual(['aeat']);
  });

  it('a last error with no failures since and the authority reachable is not shown as current', () => {
    const pasado = { ...base, colas: [cola({ pendientes: 1 })], autoridades: [{ autoridad: 'aeat', entorno: 'test' as const, alcanzable: true }] };
    expect(autoridadesVista(pasado)[0]?.ultimoError).toBeNull();
    expect(errorVigente({ fallosSeguidos: 0, alcanzable: true })).toBe(false);
    expect(errorVigente({ fallosSeguidos: 1, alcanzable: true })).toBe(true);
  });
});
