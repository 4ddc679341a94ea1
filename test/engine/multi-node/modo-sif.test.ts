// The issuer's «NO VERI*FACTU» mode is kept in memory by every node (no-verifactu/store.ts, the
// read-cache generation): a switch made on one node of a PostgreSQL database is followed by the very
// next `crear` on another, in both directions, and also when it lands between a request's first look
// at the mode and its issuing transaction. The mode costs a `crear` no round trip while it stands.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { createEngine, type Engine } from '../../../engine/src/index';
import { ManualClock } from '../../../engine/src/platform/clock';
import { migratedDataDir, testEngineConfig } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';
import { aFacturaF2 } from '../../fixtures/verifactu';

let engines: Engine[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const e of engines) await e.stop();
  engines = [];
});

const NIF = 'B12345674';

/** Two nodes on one fresh database, one clock; the first seeds the demo account. */
async function twoNodes() {
  const url = freshPostgresUrl();
  const clock = new ManualClock('2026-11-20T10:00:00.000Z');
  const start = () => createEngine(testEngineConfig(migratedDataDir(), { databaseUrl: url, clock }));
  const a = await start();
  const b = await start();
  engines.push(a, b);
  const keys = seedDemoAccount(a.context)!;
  let numero = 0;
  const crear = (node: Engine, fechaExpedicion = '20-11-2026') =>
    node.apps.billing.inject({
      method: 'POST',
      url: '/v1/verifactu/crear',
      headers: { 'x-api-key': keys.test },
      payload: aFacturaF2({ cabecera: { numero: String(++numero), fechaExpedicion } }),
    });
  const cambiar = async (node: Engine, modoSif: 'verifactu' | 'no_verifactu') => {
    const res = await node.apps.panel.inject({
      method: 'PUT',
      url: `/panel/v1/clientes/${NIF}/modo-sif`,
      headers: { authorization: 'Bearer panel-test-token' },
      payload: { entorno: 'test', modoSif },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ modoSif, cambiado: true });
  };
  return { url, clock, a, b, crear, cambiar };
}

/** The mode the stored invoice was issued in: its QR URL, its shipping state, a signature, a job queued. */
function issuedIn(node: Engine, idFactura: string): 'verifactu' | 'no_verifactu' {
  const db = node.context.db;
  const row = db
    .statement<{ urlValidacion: string; estadoEnvio: string; xml: string; jobs: number }>(
      `SELECT i.urlValidacion, r.estadoEnvio, d.xml, (SELECT count(*) FROM submission_jobs j WHERE j.registroId = r.id) AS jobs
       FROM invoices i JOIN registros r ON r.invoiceId = i.id JOIN registro_documentos d ON d.registroId = r.id WHERE i.id = ?`,
    )
    .get(idFactura)!;
  const noVerifactu = row.urlValidacion.includes('ValidarQRNoVerifactu');
  // Every trace of the record agrees on one mode.
  expect(row.estadoEnvio === 'no_remitida').toBe(noVerifactu);
  expect(row.xml.includes('<ds:Signature')).toBe(noVerifactu);
  expect(Number(row.jobs)).toBe(noVerifactu ? 0 : 1);
  return noVerifactu ? 'no_verifactu' : 'verifactu';
}

async function crearIn(crear: Promise<{ statusCode: number; body: string; json(): { idFactura: string; urlValidacion: string } }>, node: Engine) {
  const res = await crear;
  expect(res.statusCode, res.body).toBe(200);
  const modo = issuedIn(node, res.json().idFactura);
  // The answer's URL is the stored one: the QR follows the mode the record was made in.
  expect(res.json().urlValidacion.includes('ValidarQRNoVerifactu')).toBe(modo === 'no_verifactu');
  return modo;
}

describe('the «NO VERI*FACTU» mode across nodes on one PostgreSQL', () => {
  it('a switch on node A is followed by the next crear on node B, both ways', async () => {
    const { clock, a, b, crear, cambiar } = await twoNodes();
    await cambiar(a, 'no_verifactu');
    expect(await crearIn(crear(b), b)).toBe('no_verifactu');
    expect(await crearIn(crear(b), b)).toBe('no_verifactu');
    await cambiar(a, 'verifactu');
    expect(await crearIn(crear(b), b)).toBe('verifactu');
    expect(await crearIn(crear(b), b)).toBe('verifactu');
    expect(await crearIn(crear(a), a)).toBe('verifactu');
    // VERI*FACTU binds for the calendar year: NO VERI*FACTU again from 1 January.
    clock.set('2027-01-04T10:00:00.000Z');
    await cambiar(a, 'no_verifactu');
    expect(await crearIn(crear(b, '04-01-2027'), b)).toBe('no_verifactu');
    expect(await crearIn(crear(a, '04-01-2027'), a)).toBe('no_verifactu');
  });

  it('a switch on node A between node B’s first look at the mode and its transaction: the transaction’s mode decides', async () => {
    const { a, b, crear, cambiar } = await twoNodes();
    await cambiar(a, 'no_verifactu');
    expect(await crearIn(crear(b), b)).toBe('no_verifactu');
    // Back to VERI*FACTU on A while B's record, built in NO VERI*FACTU, is being signed ahead.
    const firma = b.context.noVerifactu.firma;
    const real = firma.firmarAntes.bind(firma);
    vi.spyOn(firma, 'firmarAntes').mockImplementationOnce(async (entorno, xmls, generadoEn) => {
      const signed = await real(entorno, xmls, generadoEn);
      await cambiar(a, 'verifactu');
      return signed;
    });
    expect(await crearIn(crear(b), b)).toBe('verifactu');
    expect(firma.firmarAntes).toHaveBeenCalledTimes(1);
  });
});

describe('round trips of a crear on PostgreSQL', () => {
  /** The statements `node` sends to the server while `work` runs: each one blocking round trip. */
  async function statementsOf(node: Engine, work: () => Promise<unknown>): Promise<string[]> {
    const db = node.context.db as unknown as { exec(sql: string, params: unknown[], prepare: boolean): unknown };
    const exec = db.exec;
    const sent: string[] = [];
    const spy = vi.spyOn(db, 'exec').mockImplementation((sql, params, prepare) => {
      sent.push(sql);
      return exec.call(db, sql, params, prepare);
    });
    try {
      await work();
    } finally {
      spy.mockRestore();
    }
    return sent;
  }
  const modeReads = (sent: string[]) => sent.filter((sql) => sql.includes('sif_modos')).length;

  it('a crear reads the mode from the database only after a switch, once; the next ones not at all', async () => {
    const { a, b, crear, cambiar } = await twoNodes();
    /** One crear on B: its statements, and the mode it was issued in. */
    const measured = async () => {
      let res: Awaited<ReturnType<typeof crear>> | undefined;
      const sent = await statementsOf(b, async () => (res = await crear(b)));
      const modo = await crearIn(Promise.resolve(res!), b);
      return { modo, sent: sent.length, modeReads: modeReads(sent) };
    };
    await cambiar(a, 'no_verifactu');
    // Warm: the statements prepared, the caches filled.
    for (let i = 0; i < 2; i++) await crearIn(crear(b), b);
    // Sequential requests, so no group commit shares its transaction. VERI*FACTU: the generation at
    // the request's arrival, the key's admission, the generation again (after that write), BEGIN
    // and the write lock, the identity look, the generation in the transaction, the chain head, six
    // inserts and COMMIT: 14, and no look at the mode (three before it was cached: 17). «NO
    // VERI*FACTU» queues no job but looks at the identity and the chain head ahead, to sign ahead:
    // 15 (18 before).
    expect(await measured()).toEqual({ modo: 'no_verifactu', sent: 15, modeReads: 0 });
    await cambiar(a, 'verifactu');
    // The switch moved the generation: every cached row is read again (the key, the issuer, the
    // routing rows), the mode once, at the request's first look.
    expect(await measured()).toMatchObject({ modo: 'verifactu', modeReads: 1 });
    expect(await measured()).toEqual({ modo: 'verifactu', sent: 14, modeReads: 0 });
  });
});
