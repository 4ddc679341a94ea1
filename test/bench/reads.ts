/**
 * Reads at scale: the same requests against an issuer with 10 k invoices and with 1 M, in one
 * run; the goal is the 1 M figures within 1.2× of the 10 k ones (indexes, keyset pagination).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seedDemoAccount } from '../../engine/src/demo/account';
import { createEngine } from '../../engine/src/index';
import { runningEngineConfig } from '../support/running-engine-config';
import { sqliteOf } from '../support/sqlite-of';

async function measure(invoices: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-reads-'));
  const engine = await createEngine(runningEngineConfig(dataDir, { submitAutomatically: false }));
  const ctx = engine.context;
  const keys = seedDemoAccount(ctx)!;
  const account = ctx.accounts.listAccounts()[0]!;
  const insert = sqliteOf(ctx.db).prepare(
    `INSERT INTO invoices (id, accountId, entorno, nifEmisor, sistemaFiscal, provincia, serie, numero, fechaExpedicion, numeroFactura,
       tipoFactura, importeTotal, cuotaTotal, estadoFactura, estadoEnvio, urlValidacion, huella, csvAeat, idTbai, idMaquina, creadoEn, ultimaModificacion)
     VALUES (?, ?, 'test', 'B12345674', 'verifactu', NULL, 'R', ?, '20-11-2026', ?, 'F2', '12.10', '2.10', 'registrada', 'en_cola', ?, ?, 'A-CSV', NULL, NULL, ?, ?)`,
  );
  const insertDocs = sqliteOf(ctx.db).prepare('INSERT INTO invoice_documentos (invoiceId, respuesta, datos) VALUES (?, NULL, NULL)');
  const start = Date.parse('2026-01-01T00:00:00Z');
  sqliteOf(ctx.db).pragma('synchronous = OFF'); // bulk loading only
  for (let from = 0; from < invoices; from += 50_000) {
    sqliteOf(ctx.db).transaction(() => {
      for (let i = from; i < Math.min(invoices, from + 50_000); i++) {
        const id = `fac_${String(i).padStart(8, '0')}`;
        const at = new Date(start + i * 1000).toISOString();
        insert.run(id, account.id, String(i), `R${i}`, `https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=R${i}&fecha=20-11-2026&importe=12.10`, 'A'.repeat(64), at, at);
        insertDocs.run(id);
      }
    })();
  }
  sqliteOf(ctx.db).pragma('synchronous = FULL');
  sqliteOf(ctx.db).exec('ANALYZE');
  const headers = { 'x-api-key': keys.test };
  const app = engine.apps.billing;
  const time = async (n: number, url: (i: number) => string) => {
    for (let i = 0; i < 50; i++) await app.inject({ method: 'GET', url: url(i), headers });
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const res = await app.inject({ method: 'GET', url: url(i), headers });
      if (res.statusCode !== 200) throw new Error(`${url(i)} → ${res.statusCode}`);
    }
    return Math.round(((performance.now() - t0) * 1000) / n);
  };
  const firstPage = await app.inject({ method: 'GET', url: '/v1/facturas?nifEmisor=B12345674&limite=100', headers });
  const cursor = encodeURIComponent((firstPage.json() as { proximaPagina: string }).proximaPagina);
  const round = async () => ({
    listFirstPageMicros: await time(150, () => '/v1/facturas?nifEmisor=B12345674&limite=100'),
    listNextPageMicros: await time(150, () => `/v1/facturas?nifEmisor=B12345674&limite=100&cursor=${cursor}`),
    estadoMicros: await time(1000, (i) => `/v1/facturas/fac_${String((i * 7919) % invoices).padStart(8, '0')}/estado?nifEmisor=B12345674`),
    buscarMicros: await time(1000, (i) => `/v1/facturas/buscar?nifEmisor=B12345674&serie=R&numero=${(i * 7919) % invoices}&fechaExpedicion=20-11-2026`),
    registrosMicros: await time(150, () => '/v1/registros?nifEmisor=B12345674&limite=100'),
  });
  return { invoices, round, stop: () => engine.stop() };
}

type Round = Awaited<ReturnType<Awaited<ReturnType<typeof measure>>['round']>>;

function medianOf(rounds: Round[], figure: keyof Round): number {
  const sorted = rounds.map((r) => r[figure]).sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function summary(invoices: number, rounds: Round[]) {
  return {
    invoices,
    listFirstPageMicros: medianOf(rounds, 'listFirstPageMicros'),
    listNextPageMicros: medianOf(rounds, 'listNextPageMicros'),
    estadoMicros: medianOf(rounds, 'estadoMicros'),
    buscarMicros: medianOf(rounds, 'buscarMicros'),
    registrosMicros: medianOf(rounds, 'registrosMicros'),
  };
}

export async function benchReads(small = 10_000, large = Number(process.env.BENCH_READS_LARGE ?? 1_000_000)) {
  const smallEngine = await measure(small);
  const largeEngine = await measure(large);
  // Rounds alternate between the two databases and each figure is the median of its rounds: a
  // machine whose speed drifts during the run (measured: the same read 3.1 → 5.0 ms between two
  // sequential measurements) moves both sides alike instead of one.
  const smallRounds: Round[] = [];
  const largeRounds: Round[] = [];
  for (let k = 0; k < 5; k++) {
    smallRounds.push(await smallEngine.round());
    largeRounds.push(await largeEngine.round());
  }
  // Both engines run in this process, beside the bench's own few MiB.
  const rssMiBBothEngines = Math.round(process.memoryUsage().rss / 2 ** 20);
  await smallEngine.stop();
  await largeEngine.stop();
  const a = summary(small, smallRounds);
  const b = summary(large, largeRounds);
  const r = (x: number, y: number) => Math.round((x / y) * 100) / 100;
  return {
    small: a,
    large: b,
    ratios: {
      listFirstPage: r(b.listFirstPageMicros, a.listFirstPageMicros),
      listNextPage: r(b.listNextPageMicros, a.listNextPageMicros),
      estado: r(b.estadoMicros, a.estadoMicros),
      buscar: r(b.buscarMicros, a.buscarMicros),
      registros: r(b.registrosMicros, a.registrosMicros),
    },
    rounds: 5,
    rssMiBBothEngines,
    goal: 'every ratio <= 1.2',
  };
}
