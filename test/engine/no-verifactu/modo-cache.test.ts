// The «NO VERI*FACTU» mode of an installation is kept in memory (no-verifactu/store.ts, trusted
// while the read-cache generation stands; migration 20261129T0900Z bumps it on every write to
// sif_modos). A switch by any path — this engine's panel, another connection or process on the
// same database (the admin command line) — is followed by the very next `crear`, also when it lands
// between the request's first look at the mode and its issuing transaction, whose mode decides.
// Runs on SQLite, and on PostgreSQL with TEST_DATABASE=postgres (test/engine/multi-node/modo-sif.test.ts:
// two nodes, and the round trips).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { issuerChainKey } from '../../../engine/src/devices/chain-keys';
import { verificarFirma } from '../../../engine/src/no-verifactu/firma';
import type { Database } from '../../../engine/src/db/database';
import { aFacturaF2 } from '../../fixtures/verifactu';
import { admin } from '../../support/admin-cli';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { otherConnection } from '../../support/other-connection';

let t: TestEngine;
let other: Database;
let numero = 0;
beforeEach(async () => {
  t = await makeTestEngine();
  other = otherConnection(t.engine.context.db);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await other.close();
  await t.close();
});

/** The mode set by another connection, as another process writes it (no hand-made generation bump). */
function setModeElsewhere(modoSif: 'verifactu' | 'no_verifactu'): void {
  other.transaction(() => {
    other
      .statement(
        `INSERT INTO sif_modos (entorno, nif, modoSif, desde) VALUES ('test', ?, ?, '2026-11-20T10:00:00.000Z')
         ON CONFLICT (entorno, nif) DO UPDATE SET modoSif = excluded.modoSif`,
      )
      .run(t.nifEmisor, modoSif);
  });
}

async function setModeOnPanel(modoSif: 'verifactu' | 'no_verifactu'): Promise<void> {
  const res = await t.panel('PUT', `/panel/v1/clientes/${t.nifEmisor}/modo-sif`, { entorno: 'test', modoSif });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ modoSif, cambiado: true });
}

/** A new invoice; resolves with the mode its answer and its stored record say it was made in (which agree). */
async function crear(): Promise<'verifactu' | 'no_verifactu'> {
  const res = await t.billing('POST', '/v1/verifactu/crear', { body: aFacturaF2({ cabecera: { serie: 'M', numero: String(++numero), fechaExpedicion: '20-11-2026' } }) });
  expect(res.statusCode, res.body).toBe(200);
  const { idFactura, urlValidacion } = res.json() as { idFactura: string; urlValidacion: string };
  const ctx = t.engine.context;
  const registro = ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor)).find((r) => r.invoiceId === idFactura)!;
  const jobs = ctx.db.statement<{ n: number }>('SELECT count(*) AS n FROM submission_jobs WHERE registroId = ?').get(registro.id)!;
  const noVerifactu = urlValidacion.includes('ValidarQRNoVerifactu');
  expect(registro.estadoEnvio === 'no_remitida').toBe(noVerifactu);
  expect(Number(jobs.n)).toBe(noVerifactu ? 0 : 1);
  if (noVerifactu) expect(verificarFirma(registro.xml)).toMatchObject({ valid: true });
  else expect(registro.xml).not.toContain('<ds:Signature');
  return noVerifactu ? 'no_verifactu' : 'verifactu';
}

describe('a switch of the mode is followed by the next crear', () => {
  it('switched on this engine’s panel, both ways', async () => {
    await setModeOnPanel('no_verifactu');
    expect(await crear()).toBe('no_verifactu');
    expect(await crear()).toBe('no_verifactu');
    await setModeOnPanel('verifactu');
    expect(await crear()).toBe('verifactu');
    expect(await crear()).toBe('verifactu');
  });

  it('switched by another connection (another process on the same database), both ways', async () => {
    expect(await crear()).toBe('verifactu');
    setModeElsewhere('no_verifactu');
    expect(await crear()).toBe('no_verifactu');
    expect(await crear()).toBe('no_verifactu');
    setModeElsewhere('verifactu');
    expect(await crear()).toBe('verifactu');
  });

  it('switched by the admin command line (another process)', async () => {
    setModeElsewhere('no_verifactu');
    expect(await crear()).toBe('no_verifactu');
    expect(await admin(t.dataDir, 'issuer', 'mode', t.nifEmisor, 'verifactu', '--entorno', 'test')).toMatchObject({ modoSif: 'verifactu', cambiado: true });
    expect(await crear()).toBe('verifactu');
  });
});

describe('a switch between the first look at the mode and the issuing transaction: the transaction’s mode decides', () => {
  it('to VERI*FACTU while the record, built in NO VERI*FACTU, is signed ahead: stored unsigned and queued', async () => {
    setModeElsewhere('no_verifactu');
    expect(await crear()).toBe('no_verifactu');
    const firma = t.engine.context.noVerifactu.firma;
    const real = firma.firmarAntes.bind(firma);
    vi.spyOn(firma, 'firmarAntes').mockImplementationOnce(async (entorno, xmls, generadoEn) => {
      const signed = await real(entorno, xmls, generadoEn);
      setModeElsewhere('verifactu');
      return signed;
    });
    expect(await crear()).toBe('verifactu');
    expect(firma.firmarAntes).toHaveBeenCalledTimes(1);
  });

  it('to NO VERI*FACTU after the early QR was made for VERI*FACTU: signed in the transaction, its URL made again', async () => {
    expect(await crear()).toBe('verifactu');
    const pureWork = t.engine.context.pureWork;
    const real = pureWork.qrPngBase64.bind(pureWork);
    const qr = vi.spyOn(pureWork, 'qrPngBase64').mockImplementationOnce(async (url) => {
      // Called by the request's first look (the early QR, VERI*FACTU), before its transaction.
      expect(url).not.toContain('NoVerifactu');
      setModeElsewhere('no_verifactu');
      return real(url);
    });
    expect(await crear()).toBe('no_verifactu');
    // The answer's QR is the image of the URL the transaction stored.
    expect(qr.mock.calls.at(-1)?.[0]).toContain('ValidarQRNoVerifactu');
  });
});
