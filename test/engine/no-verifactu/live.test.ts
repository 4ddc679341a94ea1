// «NO VERI*FACTU» in LIVE (issue 32): records and events are signed with the PKCS#12 configured for
// the AEAT (POS_AEAT_P12, as for mutual TLS). Without one the installation cannot enter the mode
// (its start event could not be signed), and an installation already in it answers 503 to issuing
// and stores nothing — never an unsigned record.
import { X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { verificarFirma } from '../../../engine/src/no-verifactu/firma';
import { issuerChainKey } from '../../../engine/src/devices/chain-keys';
import { makeTestEngine, migratedDataDir, type TestEngine } from '../../support/engine';
import { testP12 } from '../clients/pkcs12';
import { aTicketDemo } from '../../fixtures/verifactu';

let t: TestEngine | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const factura = (nif: string, numero = '1') => aTicketDemo(nif, 'V', numero);

const pfx = Buffer.from(testP12({ cn: 'COMERCIAL DEMO SL', entidad: 'B12345674', password: 'clave' }), 'base64');

async function liveEngine(options: { tls?: boolean; dataDir?: string; seed?: boolean } = {}) {
  return makeTestEngine({
    now: '2026-11-20T10:00:00.000Z',
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.seed === false ? { seed: false } : {}),
    ...(options.tls ? { submission: { aeat: { tls: { pfx, passphrase: 'clave' } } } as never } : {}),
  });
}

/** LIVE issuing needs the representation signed. */
function representacionFirmada(engine: TestEngine) {
  const ctx = engine.engine.context;
  ctx.db.run(ctx.db.kysely.updateTable('issuers').set({ estadoRepresentacion: 'firmado' }).where('nif', '=', engine.nifEmisor).where('entorno', '=', 'live'));
}

it('without a configured PKCS#12 the LIVE installation cannot enter the mode: 503, still verifactu, no event', async () => {
  t = await liveEngine();
  const ctx = t.engine.context;
  expect(() => ctx.noVerifactu.modos.cambiar(ctx.issuers.find('live', t!.nifEmisor)!, 'no_verifactu')).toThrow(
    expect.objectContaining({ code: 'ENVIRONMENT_NOT_AVAILABLE', httpStatus: 503 }),
  );
  expect(ctx.noVerifactu.modos.modo('live', t.nifEmisor)).toBe('verifactu');
  expect(ctx.noVerifactu.eventos.todos('live', t.nifEmisor)).toEqual([]);
});

it('with POS_AEAT_P12: signed with that certificate; restarted without it, issuing answers 503 and stores nothing', async () => {
  const dataDir = migratedDataDir();
  t = await liveEngine({ tls: true, dataDir });
  representacionFirmada(t);
  const ctx = t.engine.context;
  ctx.noVerifactu.modos.cambiar(ctx.issuers.find('live', t.nifEmisor)!, 'no_verifactu');
  const res = await t.billing('POST', '/v1/verifactu/crear', { key: t.keys.live, body: factura(t.nifEmisor) });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().urlValidacion).toMatch(/^https:\/\/www2\.agenciatributaria\.gob\.es\/wlpl\/TIKE-CONT\/ValidarQRNoVerifactu\?/);
  const [registro] = ctx.invoices.chain(issuerChainKey('verifactu', 'live', t.nifEmisor));
  expect(verificarFirma(registro!.xml)).toMatchObject({ valid: true });
  const b64 = /<ds:X509Certificate>([^<]+)</.exec(registro!.xml)![1]!;
  expect(new X509Certificate(Buffer.from(b64, 'base64')).subject).toContain('VATES-B12345674');
  const { nifEmisor, keys } = t;
  await t.close({ keepData: true });

  t = await liveEngine({ dataDir, seed: false });
  const otra = await t.billing('POST', '/v1/verifactu/crear', { key: keys.live, body: factura(nifEmisor, '2') });
  expect(otra.statusCode, otra.body).toBe(503);
  expect(otra.json()).toMatchObject({ code: 'ENVIRONMENT_NOT_AVAILABLE' });
  expect(t.engine.context.invoices.chain(issuerChainKey('verifactu', 'live', nifEmisor))).toHaveLength(1);
  await t.close();
  t = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});
