import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { startTestEmulators, type Emulators } from '../../support/emulators';

let t: TestEngine;
let emu: Emulators;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 60 });
  t = await makeTestEngine({ clock, submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, timeoutMs: 2000 }, random: () => 0.5 } });
  t.engine.context.config.emulatorUrl = emu.url;
});
afterAll(async () => {
  await t.close();
  await emu.close();
});

const panel = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
  t.panel(method, url, body);
const issue = (numero: string) =>
  t.billing('POST', '/v1/verifactu/crear', {
    body: aFacturaF2({ cabecera: { serie: 'S', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
  });

describe('Sync view: the queue by estadoEnvio, batches with replies, next attempt, reachability, errors', () => {
  it('shows records waiting, then the authority down with the last error and next attempt, then the batch and its reply', async () => {
    await issue('1');
    await issue('2');
    let view = (await panel('GET', '/panel/v1/sync')).json();
    expect(view.porEstadoEnvio.test).toEqual({ pendiente_proceso: 2 });

    // Take AEAT down through the panel's relay to the emulator's fault controls.
    expect((await panel('PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'down' })).statusCode).toBe(200);
    await t.engine.context.submissions.tick();
    view = (await panel('GET', '/panel/v1/sync')).json();
    // The send failed: the records wait for its retry (pendiente_envio), issue 4 item 5.
    expect(view.porEstadoEnvio.test).toEqual({ pendiente_envio: 2 });
    expect(view.colas[0]).toMatchObject({ obligado: 'B12345674', pendientes: 2, alcanzable: false, fallosSeguidos: 1, ultimoError: expect.any(String) });
    // The oldest record waiting, for its age on the sync view.
    expect(view.colas[0].masAntiguoEn).toBe('2026-11-20T10:00:00.000Z');
    expect(view.colas[0].proximoIntentoEn > clock.now().toISOString()).toBe(true);
    expect(view.autoridades).toEqual([{ autoridad: 'aeat', entorno: 'test', alcanzable: false }]);

    // Retry now lifts the back-off; with AEAT back the batch goes through.
    await panel('PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'none' });
    expect((await panel('POST', '/panel/v1/sync/reintentar', {})).json()).toEqual({ colas: 1 });
    await t.engine.context.submissions.tick();
    view = (await panel('GET', '/panel/v1/sync')).json();
    expect(view.porEstadoEnvio.test).toEqual({});
    expect(view.colas[0]).toMatchObject({ alcanzable: true, fallosSeguidos: 0, pendientes: 0, masAntiguoEn: null });
    const lotes = (await panel('GET', '/panel/v1/sync/lotes')).json().lotes;
    expect(lotes[0]).toMatchObject({ numRegistros: 2, estado: 'respondido', intentos: 2, estadoEnvio: 'Correcto', csv: expect.stringMatching(/^A-/) });
    const detalle = (await panel('GET', `/panel/v1/sync/lotes/${lotes[0].idLote}`)).json();
    expect(detalle.peticion).toContain('RegFactuSistemaFacturacion');
    expect(detalle.respuesta).toContain('RespuestaRegFactuSistemaFacturacion');
  });

  it('pause per environment stops filing; resume restarts it', async () => {
    expect((await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: true })).json()).toEqual({ entorno: 'test', pausado: true });
    await issue('3');
    clock.advance(120_000);
    expect(await t.engine.context.submissions.tick()).toBe(0);
    expect((await panel('GET', '/panel/v1/sync')).json().pausado).toEqual({ test: true, live: false });
    await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: false });
    expect(await t.engine.context.submissions.tick()).toBe(1);
  });

  it('a rejection counts until a correction supersedes it: «Rechazados» is what still needs fixing', async () => {
    emu.aeat.faults.set({ rejectNext: { count: 1, codigo: 1108 } });
    const body = aFacturaF2({ cabecera: { serie: 'S', numero: '9', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } });
    expect((await t.billing('POST', '/v1/verifactu/crear', { body })).statusCode).toBe(200);
    clock.advance(120_000);
    await t.engine.context.submissions.tick();
    expect((await panel('GET', '/panel/v1/sync')).json().rechazados).toEqual({ test: 1, live: 0 });

    clock.advance(1000);
    const fix = await t.billing('PUT', '/v1/verifactu/subsanar', { body: { ...body, subsanacion: true } });
    expect(fix.statusCode, fix.body).toBe(200);
    expect((await panel('GET', '/panel/v1/sync')).json().rechazados).toEqual({ test: 0, live: 0 });
  });

  it('pending per till: records still out, by environment, issuer and idMaquina (null: sent without one)', async () => {
    await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: true });
    const body = aFacturaF2({ cabecera: { serie: 'D', numero: '1', fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } });
    expect((await t.billing('POST', '/v1/verifactu/crear', { body: { ...body, idMaquina: 'WEB-CAJA1' } })).statusCode).toBe(200);
    const view = (await panel('GET', '/panel/v1/sync')).json();
    expect(view.porDispositivo).toContainEqual({ entorno: 'test', nif: 'B12345674', idMaquina: 'WEB-CAJA1', pendientes: 1 });
    await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: false });
  });

  it('a till’s chain: length and last huella of the chain it writes to (the issuer’s until it has its own)', async () => {
    const res = await panel('GET', '/panel/v1/cadena?entorno=test&nif=B12345674&idMaquina=WEB-CAJA1');
    expect(res.statusCode).toBe(200);
    const cadena = res.json();
    expect(cadena).toMatchObject({ propia: false, sistemaFiscal: 'verifactu', ultimaHuella: expect.stringMatching(/^[0-9A-F]{64}$/) });
    expect(cadena.longitud).toBeGreaterThan(0);
    const latest = (await t.billing('GET', '/v1/registros?nifEmisor=B12345674&limite=1')).json().registros[0];
    expect(cadena.ultimaHuella).toBe(latest.huella);
    expect((await panel('GET', '/panel/v1/cadena?entorno=test&nif=B99999999')).json()).toEqual({ propia: false, sistemaFiscal: 'verifactu', longitud: 0, ultimaHuella: null });
    expect((await panel('GET', '/panel/v1/cadena?entorno=prod&nif=B12345674')).statusCode).toBe(400);
  });

  it('«Reintentar ahora»: the next attempt becomes what the engine will do now, never the back-off lifted nor a wait already over', async () => {
    const cola = async () => ((await panel('GET', '/panel/v1/sync')).json().colas as { entorno: string; obligado: string; siguienteEnvioEn: string | null; reintentoEn: string | null; proximoIntentoEn: string | null }[]).find((c) => c.entorno === 'test' && c.obligado === 'B12345674')!;
    // Whatever waits goes, so the AEAT's wait (TiempoEsperaEnvio) is set; then it is over.
    clock.advance(120_000);
    await t.engine.context.submissions.drainDue();
    clock.advance(120_000);
    await panel('PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'down' });
    await issue('20');
    await t.engine.context.submissions.tick();
    const antes = await cola();
    expect(antes.siguienteEnvioEn! < clock.now().toISOString()).toBe(true);
    expect(antes.reintentoEn! > clock.now().toISOString()).toBe(true);
    expect(antes.proximoIntentoEn).toBe(antes.reintentoEn);
    clock.advance(1000);
    expect((await panel('POST', '/panel/v1/sync/reintentar', {})).json()).toEqual({ colas: expect.any(Number) });
    const ahora = await cola();
    expect(ahora.reintentoEn).toBeNull();
    expect(ahora.proximoIntentoEn).toBe(clock.now().toISOString());
    // It tried and failed again: the new back-off is what it says.
    await t.engine.context.submissions.tick();
    const despues = await cola();
    expect(despues.proximoIntentoEn).toBe(despues.reintentoEn);
    expect(despues.proximoIntentoEn! > clock.now().toISOString()).toBe(true);
    // Paused, nothing is due: no «now».
    await panel('POST', '/panel/v1/sync/reintentar', {});
    await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: true });
    expect((await cola()).proximoIntentoEn).toBe(despues.siguienteEnvioEn);
    await panel('POST', '/panel/v1/sync/pausa', { entorno: 'test', pausado: false });
    await panel('PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'none' });
  });

  it('bad bodies are 400 naming the field', async () => {
    const res = await panel('POST', '/panel/v1/sync/pausa', { entorno: 'prod', pausado: true });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'entorno' });
  });
});
