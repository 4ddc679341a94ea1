import { createHash } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crear, drained, killMidLoad, startEngineProcess } from '../../support/engine-child';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { invalidAeatRepliesIn } from '../../support/xsd';
import { aTicketDemo } from '../../fixtures/verifactu';

let emu: Emulators;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  // AEAT registers first and answers 150 ms later: a kill in that window leaves records the
  // authority holds and the engine never heard about, which the restart must resend.
  emu.aeat.faults.set({ mode: 'slow', delayMs: 150, afterProcessing: true });
});
// A test that times out must not leave its engine process running (it would keep the port and the data dir busy).
let live: ChildProcess | undefined;
afterAll(async () => {
  if (live && live.exitCode === null && live.signalCode === null) live.kill('SIGKILL');
  await emu.close();
});

function ticket(nif: string, numero: string) {
  return aTicketDemo(nif, 'K', numero, 'Ticket');
}

const NIF = 'B12345674';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * What must hold after every restart once the backlog drained; returns how many submissions
 * were sent more than once so far.
 */
function assertSettled(db: Database.Database, acknowledged: ReadonlySet<string>, round: number): number {
  const at = `after restart ${round}`;
  const ids = new Set((db.prepare('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
  for (const id of acknowledged) expect(ids.has(id), `${at}: acknowledged ${id} lost`).toBe(true);
  const finals = db.prepare('SELECT estadoEnvioFinal AS estado, COUNT(*) AS n FROM registros GROUP BY estadoEnvioFinal').all();
  // A kill may land before the first 200 (a slow start on a loaded machine): then nothing is stored.
  expect(finals, at).toEqual(ids.size === 0 ? [] : [{ estado: 'registrada', n: ids.size }]);

  // The engine's chain never forked.
  const registros = db
    .prepare('SELECT chainSeq, huella, huellaAnterior, idLote FROM registros WHERE chainKey = ? ORDER BY chainSeq')
    .all(`test|verifactu|${NIF}`) as { chainSeq: number; huella: string; huellaAnterior: string | null; idLote: string }[];
  expect(registros.length, at).toBe(ids.size);
  registros.forEach((r, i) => {
    expect(r.chainSeq, at).toBe(i + 1);
    expect(r.huellaAnterior, at).toBe(i === 0 ? null : registros[i - 1]!.huella);
  });

  // Exactly once in the authority's ledger: the same records (by huella), and its chain intact.
  const held = emu.aeat.ledger.records(NIF);
  expect(held.length, at).toBe(registros.length);
  expect(new Set(held.map((r) => r.huella)), at).toEqual(new Set(registros.map((r) => r.huella)));
  expect(emu.aeat.ledger.chainIntact(NIF), at).toBe(true);

  // One event per record: a reconciled duplicate writes none.
  const events = db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT registroId) AS d FROM events').get() as { n: number; d: number };
  expect(events, at).toEqual({ n: registros.length, d: registros.length });

  // Every request that reached AEAT is one of the engine's committed submissions, whole: its
  // records are exactly that submission's records. A submission sent again went with the bytes
  // committed before the first send, or — only when its header gained Incidencia=S — the same
  // records under the new header.
  const loteOf = new Map(registros.map((r) => [r.huella, r.idLote]));
  const lotes = new Map<string, Set<string>>();
  for (const r of registros) lotes.set(r.idLote, (lotes.get(r.idLote) ?? new Set()).add(r.huella));
  const peticion = new Map(
    (db.prepare("SELECT b.id, p.peticion FROM submission_batches b JOIN submission_requests p ON p.idLote = b.id WHERE b.autoridad = 'aeat'").all() as { id: string; peticion: string }[]).map((b) => [
      b.id,
      b.peticion,
    ]),
  );
  const presented = new Map<number, Set<string>>();
  for (const p of emu.aeat.ledger.presentations()) presented.set(p.submissionId, (presented.get(p.submissionId) ?? new Set()).add(p.huella));
  const sends = new Map<string, string[]>();
  // A request cut by the kill mid-write never reaches processing (a Fault at most): only the
  // processed ones registered anything.
  for (const s of emu.aeat.ledger.submissions().filter((x) => x.outcome === 'processed')) {
    const huellas = presented.get(s.id) ?? new Set<string>();
    const lote = loteOf.get([...huellas][0] ?? '');
    expect(lote, `${at}: submission ${s.id} carries records the engine does not hold`).toBeDefined();
    expect(huellas, `${at}: submission ${s.id} is not the whole of ${lote}`).toEqual(lotes.get(lote!));
    sends.set(lote!, [...(sends.get(lote!) ?? []), s.requestSha256]);
  }
  let resent = 0;
  for (const [lote, shas] of sends) {
    const stored = peticion.get(lote)!;
    expect(shas.at(-1), `${at}: last send of ${lote} is not its stored bytes`).toBe(sha256(stored));
    if (shas.length === 1) continue;
    resent++;
    if (new Set(shas).size > 1) {
      expect(new Set(shas).size, `${at}: ${lote} sent under more than two headers`).toBe(2);
      expect(stored, `${at}: ${lote} resent with other bytes but no Incidencia`).toMatch(/Incidencia>S</);
    }
  }
  return resent;
}

describe('The engine killed with SIGKILL mid-submission, 10 times', () => {
  it('after each restart every record reaches its final state, each is in the ledger exactly once, every chain is intact', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'crash-'));
    const acknowledged = new Set<string>();
    let counter = 0;
    let resent = 0;
    let db: Database.Database | undefined;
    for (let round = 0; round <= 10; round++) {
      const { child, info } = await startEngineProcess(dataDir, { aeatUrl: emu.aeatUrl });
      live = child;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      db ??= new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
      if (round > 0) {
        // The restarted engine files what the killed one left, then everything is settled.
        await drained(db, 600);
        resent = assertSettled(db, acknowledged, round);
      }
      if (round === 10) {
        child.kill('SIGTERM');
        await exited;
        break;
      }
      let sending = true;
      const load = (async () => {
        while (sending) {
          const batch = Array.from({ length: 20 }, () => String(counter++));
          await Promise.all(
            batch.map(async (numero) => {
              try {
                const res = await crear(info, 'verifactu', ticket(info.nif, numero));
                if (res.status === 200) acknowledged.add(((await res.json()) as { idFactura: string }).idFactura);
              } catch {
                // The engine died under this request: it was never acknowledged.
              }
            }),
          );
        }
      })();
      await killMidLoad(child, exited, { minMs: 300, spreadMs: 700 }, async () => {
        sending = false;
        await load;
      });
    }
    db?.close();

    expect(acknowledged.size).toBeGreaterThan(50);
    // The kills did land mid-submission: some submissions reached AEAT twice (reconciled above).
    expect(resent).toBeGreaterThan(0);
    expect(emu.aeat.ledger.duplicatesReceived().length).toBeGreaterThan(0);
    expect(await invalidAeatRepliesIn(dataDir)).toEqual([]);
    // Eleven engine starts and drains: ≈ 60 s on a quiet machine, more than twice that on a loaded one.
  }, 300_000);
});
