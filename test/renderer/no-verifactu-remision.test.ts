// Issue 32 in the till: exports and the AEAT's requirement from the «NO VERI*FACTU» panel of the
// sync view — a period of whole days in the shop's zone, the calls the panel makes, the answers
// kept for the screen, an empty period said as such, and every word in every language.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { useSession } from '../../src-renderer/app/session';
import { periodoDeDias, REFERENCIA_REQUERIMIENTO, useNoVerifactu } from '../../src-renderer/features/sync/no-verifactu-store';
import { LANGS, translate, type MessageKey } from '../../src-renderer/i18n';
import { fakeEngine, ok } from './support/fake-engine';

const NIF = 'B12345674';
const exportacion = {
  registros: { fichero: `registros-${NIF}-test-20261101T000000000Z-20261120T225959000Z.jsonl`, altas: 12, anulaciones: 1, sumaCuotaTotalAlta: '25.20', sumaImporteTotalAlta: '145.20' },
  eventos: { fichero: `eventos-${NIF}-test-20261101T000000000Z-20261120T225959000Z.jsonl`, numero: 4 },
  eventosAnotados: [
    { id: 'evt1', tipoEvento: '08', huella: 'A'.repeat(64) },
    { id: 'evt2', tipoEvento: '09', huella: 'B'.repeat(64) },
  ],
};
const requerimiento = {
  nif: NIF,
  entorno: 'test',
  refRequerimiento: 'REQ2026A1',
  registros: 13,
  envios: [{ registros: 13, estadoEnvio: 'Correcto', csv: 'A-ABCDEFGHIJKLMN', correctos: 13, aceptadosConErrores: 0, incorrectos: 0 }],
  evento: { id: 'evt3', tipoEvento: '90', huella: 'C'.repeat(64) },
};
const periodo = { desde: '2026-11-01T00:00:00+01:00', hasta: '2026-11-20T23:59:59+01:00' };

describe('a period of whole days in the shop’s zone', () => {
  it('winter and summer offsets, and the days Spain changes its clocks', () => {
    expect(periodoDeDias('2026-11-01', '2026-11-20')).toEqual(periodo);
    expect(periodoDeDias('2026-07-01', '2026-07-31')).toEqual({ desde: '2026-07-01T00:00:00+02:00', hasta: '2026-07-31T23:59:59+02:00' });
    // 29 March 2026: midnight is still winter time, 23:59 summer time; 25 October the other way.
    expect(periodoDeDias('2026-03-29', '2026-03-29')).toEqual({ desde: '2026-03-29T00:00:00+01:00', hasta: '2026-03-29T23:59:59+02:00' });
    expect(periodoDeDias('2026-10-25', '2026-10-25')).toEqual({ desde: '2026-10-25T00:00:00+02:00', hasta: '2026-10-25T23:59:59+01:00' });
    // The Canaries' zone when the till is set to it.
    expect(periodoDeDias('2026-11-01', '2026-11-01', 'Atlantic/Canary')).toEqual({ desde: '2026-11-01T00:00:00+00:00', hasta: '2026-11-01T23:59:59+00:00' });
  });

  it('no period: the first day after the last, or a day not typed whole', () => {
    expect(periodoDeDias('2026-11-21', '2026-11-20')).toBeUndefined();
    expect(periodoDeDias('', '2026-11-20')).toBeUndefined();
    expect(periodoDeDias('2026-11-01', '20-11-2026')).toBeUndefined();
  });

  it('the requirement’s reference: letters and digits, 1 to 18 (AEAT 4133)', () => {
    expect(REFERENCIA_REQUERIMIENTO.test('REQ2026A1')).toBe(true);
    for (const ref of ['', 'REQ 2026', 'REQ-2026', 'Ñ1', 'A'.repeat(19)]) expect(REFERENCIA_REQUERIMIENTO.test(ref), ref).toBe(false);
  });
});

describe('exports and the requirement from the sync view', () => {
  const initial = useNoVerifactu.getState();
  beforeEach(() => useNoVerifactu.setState({ ...initial, nif: NIF, entorno: 'test', eventos: [], exportacion: undefined, requerimiento: undefined, error: undefined }));

  function engine(handler: (url: string, method: string) => { status: number; body: unknown } | undefined) {
    const e = fakeEngine((call) => {
      if (call.url.startsWith(`/panel/v1/api/manage/v1/clientes/${NIF}/eventos`)) return ok({ nif: NIF, entorno: 'test', modoSif: 'no_verifactu', eventos: [], total: 0, proximaPagina: null });
      return handler(call.url, call.method);
    });
    useSession.setState({ client: e.client, lang: 'es' });
    return e;
  }

  it('«Exportar» posts the period for the issuer and environment, keeps the answer and reads the log again (08/09)', async () => {
    const { calls } = engine((url, method) => (url === `/panel/v1/clientes/${NIF}/exportacion` && method === 'POST' ? ok(exportacion) : undefined));
    await useNoVerifactu.getState().exportar(periodo);
    expect(calls[0]).toEqual({ method: 'POST', url: `/panel/v1/clientes/${NIF}/exportacion`, body: { entorno: 'test', ...periodo } });
    expect(useNoVerifactu.getState().exportacion).toEqual(exportacion);
    expect(useNoVerifactu.getState().exportando).toBe(false);
    await vi.waitFor(() => expect(calls.some((c) => c.url.includes('/eventos'))).toBe(true));
    expect(translate('es', 'noVerifactu.exportado', { altas: 12, anulaciones: 1, importe: '145,20 €', eventos: 4 })).toBe(
      'Exportación hecha. Facturas: 12 · anulaciones: 1 · importe total: 145,20 € · eventos: 4.',
    );
  });

  it('a period with nothing kept reads so, with the engine’s text only as the detail', async () => {
    engine(() => ({ status: 404, body: { code: 'NOT_FOUND', message: 'No hay registros de facturación en ese periodo', campo: 'desde' } }));
    await useNoVerifactu.getState().exportar(periodo);
    expect(useNoVerifactu.getState().exportacion).toBeUndefined();
    expect(useNoVerifactu.getState().error).toEqual({
      mensaje: 'No hay facturas guardadas en ese periodo: elija otras fechas.',
      detalle: 'NOT_FOUND · No hay registros de facturación en ese periodo',
    });
    useSession.setState({ lang: 'eu' });
    await useNoVerifactu.getState().remitir('REQ2026A1', periodo);
    expect(useNoVerifactu.getState().error?.mensaje).toBe(translate('eu', 'noVerifactu.periodoVacio'));
  });

  it('a till’s own credential is refused in words (403 ADMIN_REQUIRED)', async () => {
    engine(() => ({ status: 403, body: { code: 'ADMIN_REQUIRED', message: 'Solo el administrador' } }));
    await useNoVerifactu.getState().exportar(periodo);
    expect(useNoVerifactu.getState().error?.mensaje).toBe(translate('es', 'error.soloAdministrador'));
  });

  it('«Enviar a la AEAT» posts the reference and the period, keeps the AEAT’s answer and reads the log again', async () => {
    const { calls } = engine((url, method) => (url === `/panel/v1/clientes/${NIF}/requerimiento` && method === 'POST' ? ok(requerimiento) : undefined));
    await useNoVerifactu.getState().remitir('REQ2026A1', periodo);
    expect(calls[0]).toEqual({ method: 'POST', url: `/panel/v1/clientes/${NIF}/requerimiento`, body: { entorno: 'test', refRequerimiento: 'REQ2026A1', ...periodo } });
    expect(useNoVerifactu.getState().requerimiento).toEqual(requerimiento);
    expect(useNoVerifactu.getState().remitiendo).toBe(false);
    await vi.waitFor(() => expect(calls.some((c) => c.url.includes('/eventos'))).toBe(true));
  });

  it('an exported file is read by its name, for the issuer and environment', async () => {
    const { calls } = engine((url) => (url.startsWith(`/panel/v1/clientes/${NIF}/exportaciones/`) ? ok({ linea: 1 }) : undefined));
    expect(await useNoVerifactu.getState().fichero(exportacion.registros.fichero)).toBe('{"linea":1}');
    expect(calls[0]?.url).toBe(`/panel/v1/clientes/${NIF}/exportaciones/${exportacion.registros.fichero}?entorno=test`);
  });

  it('another issuer: no export or requirement of the previous one stays', async () => {
    engine(() => undefined);
    useNoVerifactu.setState({ exportacion, requerimiento: requerimiento as never });
    await useNoVerifactu.getState().cargar('B87654323', 'test');
    expect(useNoVerifactu.getState().exportacion).toBeUndefined();
    expect(useNoVerifactu.getState().requerimiento).toBeUndefined();
  });
});

describe('the words of exports and the requirement', () => {
  const keys: MessageKey[] = [
    'noVerifactu.remision', 'noVerifactu.remisionNota', 'noVerifactu.desde', 'noVerifactu.hasta', 'noVerifactu.periodoInvalido', 'noVerifactu.periodoVacio',
    'noVerifactu.exportar', 'noVerifactu.exportando', 'noVerifactu.exportado', 'noVerifactu.descargarFacturas', 'noVerifactu.descargarEventos',
    'noVerifactu.referencia', 'noVerifactu.referenciaAyuda', 'noVerifactu.referenciaInvalida', 'noVerifactu.remitir', 'noVerifactu.remitiendo',
    'noVerifactu.confirmarRemision', 'noVerifactu.remitido', 'noVerifactu.remisionRehusada', 'noVerifactu.justificante',
  ];
  it('exist in every language, every placeholder filled', () => {
    const vars = { altas: 1, anulaciones: 2, importe: '3', eventos: 4, desde: '01/11/2026', hasta: '20/11/2026', ref: 'R1', registros: 5, correctos: 6, conErrores: 7, incorrectos: 8, csv: 'C' };
    for (const lang of LANGS) {
      for (const key of keys) {
        const text = translate(lang, key, vars);
        expect(text, `${lang} ${key}`).not.toBe(key);
        expect(text, `${lang} ${key}`).not.toMatch(/\{\w+\}/);
      }
    }
    expect(translate('es', 'noVerifactu.remitido', { registros: 13, ref: 'REQ2026A1', correctos: 13, conErrores: 0, incorrectos: 0 })).toBe(
      'Enviado a la AEAT con la referencia REQ2026A1. Facturas: 13 · admitidas: 13 · admitidas con errores: 0 · rechazadas: 0.',
    );
  });
});
