// Sending the kept «NO VERI*FACTU» records on the AEAT's requirement (issue 32): the records of a
// period, signed as stored, in a submission whose Cabecera carries RemisionRequerimiento (its
// RefRequerimiento, FinRequerimiento S on the last), accepted by the AEAT emulator; the sending
// logged as an event. The panel route and `npm run admin -- requerimiento`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../support/admin-cli';
import { startTestEmulators } from '../../support/emulators';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { soapBodyFirstChild, validateAgainstVerifactuXsd } from '../../support/xsd';
import { issuerChainKey } from '../../../engine/src/devices/chain-keys';
import { buildRegFactuSoapEnvelope } from '../../../engine/src/regimes/verifactu/authority/soap';
import { aTicketDemo } from '../../fixtures/verifactu';

let emulators: Awaited<ReturnType<typeof startTestEmulators>>;
let t: TestEngine;
/**
 * The AEAT answers requirements on its own endpoint (SWeb §6.6: "URLs diferentes"; the VERI*FACTU one
 * refuses RemisionRequerimiento with 4126). The engine is configured with the VERI*FACTU URL, as a
 * till is, and derives the requirement endpoint from it (`requerimientoUrl`).
 */
let verifactuUrl: string;
beforeAll(async () => {
  emulators = await startTestEmulators({ waitSeconds: 0 });
  verifactuUrl = emulators.aeatUrl;
  t = await makeTestEngine({ now: '2026-11-20T10:00:00.000Z', submission: { aeat: { url: { test: verifactuUrl, live: verifactuUrl }, timeoutMs: 10_000 } } as never });
});
afterAll(async () => {
  await t.close();
  await emulators.close();
});

/** POST /panel/v1/clientes/{nif}/requerimiento (the administrator's token) for November 2026 in TEST. */
const requerimiento = (refRequerimiento: string) =>
  t.panel('POST', `/panel/v1/clientes/${t.nifEmisor}/requerimiento`, {
    entorno: 'test',
    refRequerimiento,
    desde: '2026-11-01T00:00:00+01:00',
    hasta: '2026-11-30T23:59:59+01:00',
  });

function factura(numero: string) {
  return aTicketDemo(t.nifEmisor, 'R', numero);
}

it('sends the period\'s kept records to the AEAT emulator, which accepts them; logged as an event', async () => {
  const ctx = t.engine.context;
  const issuer = ctx.issuers.find('test', t.nifEmisor)!;
  ctx.noVerifactu.modos.cambiar(issuer, 'no_verifactu');
  for (const n of ['1', '2', '3']) expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(n) })).statusCode).toBe(200);
  // The submission: RemisionRequerimiento in the Cabecera and the signed records, valid against SuministroLR.xsd.
  const envelope = buildRegFactuSoapEnvelope({
    obligado: { nombreRazon: issuer.nombre, nif: issuer.nif },
    requerimiento: { ref: 'REQ20260001', fin: true },
    registros: ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor)).map((r) => r.xml),
  });
  expect(envelope).toContain(
    '<sum1:RemisionRequerimiento><sum1:RefRequerimiento>REQ20260001</sum1:RefRequerimiento><sum1:FinRequerimiento>S</sum1:FinRequerimiento></sum1:RemisionRequerimiento></sum:Cabecera>',
  );
  expect(await validateAgainstVerifactuXsd(soapBodyFirstChild(envelope), 'SuministroLR.xsd')).toEqual({ valid: true, errors: [] });

  const panel = await requerimiento('REQ20260001');
  expect(panel.statusCode, panel.body).toBe(200);
  const r = panel.json() as { registros: number; envios: { registros: number; estadoEnvio: string; correctos: number; incorrectos: number }[]; evento: { id: string } };
  expect(r.registros).toBe(3);
  expect(r.envios).toHaveLength(1);
  expect(r.envios[0]).toMatchObject({ registros: 3, incorrectos: 0 });
  expect(['Correcto', 'ParcialmenteCorrecto']).toContain(r.envios[0]!.estadoEnvio);
  const ev = ctx.noVerifactu.eventos.todos('test', t.nifEmisor).find((e) => e.id === r.evento.id)!;
  expect(ev.tipoEvento).toBe('90');
  expect(ev.xml).toContain('Remision por requerimiento REQ20260001: 3 registros en 1 envios');
  expect(await validateAgainstVerifactuXsd(ev.xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
  // Still kept: the records are not queued for filing or marked sent.
  expect(ctx.db.all(ctx.db.kysely.selectFrom('submission_jobs').select('id'))).toEqual([]);

  // Bad input: a reference longer than 18 characters names the field; an empty period is 404.
  const largo = await requerimiento('X'.repeat(19));
  expect(largo.statusCode).toBe(400);
  await expect(ctx.noVerifactu.requerimientos.remitir(issuer, { ref: 'R', desde: new Date('2026-01-01T00:00:00Z'), hasta: new Date('2026-01-02T00:00:00Z') })).rejects.toMatchObject({
    code: 'NOT_FOUND',
  });
});

it('npm run admin -- requerimiento sends a period\'s records too', async () => {
  // Records of the next day, a period of their own (the AEAT already holds the first three).
  t.clock.set(new Date('2026-11-21T10:00:00.000Z'));
  for (const n of ['4', '5', '6']) expect((await t.billing('POST', '/v1/verifactu/crear', { body: { ...factura(n), cabecera: { ...factura(n).cabecera, fechaExpedicion: '21-11-2026' } } })).statusCode).toBe(200);
  process.env.POS_AEAT_URL_TEST = verifactuUrl;
  try {
    const r = (await admin(t.dataDir, 'requerimiento', 'REQ20260002', '--nif', t.nifEmisor, '--desde', '2026-11-21T00:00:00+01:00', '--hasta', '2026-11-21T23:59:59+01:00')) as {
      registros: number;
      envios: { incorrectos: number }[];
    };
    expect(r.registros).toBe(3);
    expect(r.envios[0]!.incorrectos).toBe(0);
  } finally {
    delete process.env.POS_AEAT_URL_TEST;
  }
});

describe('the requirement goes to the AEAT’s requirement endpoint (SistemaFacturacion.wsdl)', () => {
  it('…/VerifactuSOAP becomes …/RequerimientoSOAP on the same host; any other URL is kept', async () => {
    const { requerimientoUrl } = await import('../../../engine/src/no-verifactu/requerimiento');
    expect(requerimientoUrl('https://prewww1.aeat.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP')).toBe(
      'https://prewww1.aeat.es/wlpl/TIKE-CONT/ws/SistemaFacturacion/RequerimientoSOAP',
    );
    expect(requerimientoUrl('http://127.0.0.1:8790/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP?x=1')).toBe(
      'http://127.0.0.1:8790/wlpl/TIKE-CONT/ws/SistemaFacturacion/RequerimientoSOAP?x=1',
    );
    expect(requerimientoUrl('https://proxy.example/aeat')).toBe('https://proxy.example/aeat');
  });
});

it('a reference that is not alphanumeric is refused before anything is sent (AEAT 4133): 400 naming refRequerimiento', async () => {
  const panel = await requerimiento('REQ-2026-0003');
  expect(panel.statusCode, panel.body).toBe(400);
  expect(panel.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'refRequerimiento' });
  // The service itself (what `npm run admin -- requerimiento` calls) refuses it too, before any read or send.
  const issuer = t.engine.context.issuers.find('test', t.nifEmisor)!;
  for (const ref of ['REQ-2026-0003', 'REQ 2026', 'Ñ1', '']) {
    await expect(
      t.engine.context.noVerifactu.requerimientos.remitir(issuer, { ref, desde: new Date('2026-11-01T00:00:00Z'), hasta: new Date('2026-11-30T00:00:00Z') }),
      ref,
    ).rejects.toMatchObject({ httpStatus: 400, code: 'VALIDATION_ERROR', extra: { campo: 'ref' } });
  }
});
