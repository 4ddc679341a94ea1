// Issue 27: two engine nodes (processes) on one PostgreSQL. Tills and a centralized client send to
// both at once: no chain forks or breaks, the same identity sent to both makes one invoice and a
// replay, and filing — each queue driven by one node at a time (db/work-ownership.ts) — files every
// record exactly once, in order, TiempoEsperaEnvio and the 1,000-record cap kept. A node killed
// while its submission is at the authority: the other node takes the queue over and resends the
// exact stored bytes; the authority's duplicate answers are reconciled.
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { aTicketTbai, tbaiEmisor } from '../../fixtures/ticketbai';
import { crear, type EngineProcessInfo } from '../../support/engine-child';
import { activateDevicesOn, chainProblems, drainedOn, killNode, startNode, type EngineNode } from '../../support/engine-nodes';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { freshPostgresUrl } from '../../support/postgres';

const VF_NIF = 'B12345674';
const TBAI = tbaiEmisor('gipuzkoa');
const DEVICES = ['tpv-1', 'tpv-2', 'tpv-3', 'tpv-4'];
/** The first key of the submission queues' advisory locks (db/work-ownership.ts). */
const QUEUE_LOCKS = 0x5e_d1;

let emu: Emulators;
let url: string;
let db: PostgresDatabase;
const nodes: EngineNode[] = [];

/** A VeriFactu ticket of the centralized client (one chain), or a TicketBAI one of a till (its device's chain). */
const body = (regime: 'verifactu' | 'ticketbai', serie: string, numero: string, device?: string) =>
  regime === 'verifactu'
    ? {
        version: '1.0',
        emisor: { nif: VF_NIF, nombre: 'COMERCIAL DEMO SL' },
        cabecera: { serie, numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' },
        detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
        totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
      }
    : { ...aTicketTbai('gipuzkoa', TBAI, serie, numero), idMaquina: device };

/** Each node by its application_name, so the test can tell which one holds a queue. */
const nodeUrl = (name: string) => `${url}?application_name=${name}`;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 1 });
  url = freshPostgresUrl();
  db = new PostgresDatabase(url);
  const keysFile = path.join(mkdtempSync(path.join(tmpdir(), 'nodes-')), 'keys.json');
  const urls = { aeatUrl: emu.aeatUrl, emulatorsUrl: emu.url };
  // The first node seeds the account; the second starts once it is there.
  nodes.push(await startNode(nodeUrl('node-a'), keysFile, urls));
  nodes.push(await startNode(nodeUrl('node-b'), keysFile, urls));
  activateDevicesOn(db, [TBAI.nif], DEVICES);
}, 120_000);

afterAll(async () => {
  for (const node of nodes) await killNode(node);
  await db?.close();
  await emu?.close();
});

const info = (i: number): EngineProcessInfo => nodes[i]!.info;

describe('two nodes on one PostgreSQL', () => {
  it('issuing on one chain (centralized) and on four device chains through both nodes at once: no fork, no break; filing: each record once, in order, the wait and the cap kept', async () => {
    const acknowledged = new Set<string>();
    // 4 writers per node on the centralized chain, and each till alternating between the nodes.
    const writer = async (regime: 'verifactu' | 'ticketbai', serie: string, device?: string) => {
      for (let n = 1; n <= 25; n++) {
        const res = await crear(info(n % 2), regime, body(regime, serie, String(n), device));
        const answer = (await res.json()) as { idFactura?: string; code?: string };
        expect(res.status, `${serie}${n}: ${answer.code}`).toBe(200);
        acknowledged.add(answer.idFactura!);
      }
    };
    await Promise.all([
      ...['V1-', 'V2-', 'V3-', 'V4-'].map((serie) => writer('verifactu', serie)),
      ...DEVICES.map((device) => writer('ticketbai', `K-${device}-`, device)),
    ]);
    expect(acknowledged.size).toBe(200);
    expect(chainProblems(db)).toEqual([]);
    const heads = db.statement('SELECT chainKey, length FROM chains ORDER BY chainKey').all() as { chainKey: string; length: number }[];
    // One VeriFactu chain of 100 (the centralized client) and four TicketBAI chains of 25 (the tills).
    expect(heads.map((h) => Number(h.length)).sort((x, y) => x - y)).toEqual([25, 25, 25, 25, 100]);

    await drainedOn(db, 600);
    const filed = db.statement("SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal = 'registrada'").get() as { n: number };
    expect(Number(filed.n)).toBe(200);
    expect(emu.aeat.ledger.countRecords(VF_NIF)).toBe(100);
    expect(emu.aeat.ledger.duplicatesReceived(), 'no record sent twice').toEqual([]);
    expect(emu.aeat.ledger.chainIntact(VF_NIF), 'filed in chain order').toBe(true);
    expect(emu.aeat.ledger.flowViolations(VF_NIF), 'TiempoEsperaEnvio kept').toEqual([]);
    expect(emu.aeat.ledger.maxBatchSize()).toBeLessThanOrEqual(1000);
    for (const device of DEVICES) {
      expect(emu.tbai.ledger.chainIntact('gipuzkoa', TBAI.nif, device), device).toBe(true);
      expect(emu.tbai.ledger.chainHead('gipuzkoa', TBAI.nif, device)?.length, device).toBe(25);
    }
  });

  it('the same identity sent to both nodes at once: one invoice, the other answer a replay of it', async () => {
    for (let round = 0; round < 5; round++) {
      const invoice = body('verifactu', 'DUP-', String(round + 1));
      const answers = await Promise.all([0, 1].map(async (i) => {
        const res = await crear(info(i), 'verifactu', invoice);
        return { status: res.status, json: (await res.json()) as { idFactura: string; yaExistente?: boolean } };
      }));
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(answers[0]!.json.idFactura).toBe(answers[1]!.json.idFactura);
      expect(answers.filter((a) => a.json.yaExistente === true)).toHaveLength(1);
      const stored = db.statement("SELECT COUNT(*) AS n FROM invoices WHERE serie = 'DUP-' AND numero = ?").get(String(round + 1)) as { n: number };
      expect(Number(stored.n)).toBe(1);
    }
    expect(chainProblems(db)).toEqual([]);
  });

  it('the node driving a queue is killed while its submission is at the authority: the other resends the exact stored bytes, each record filed once', async () => {
    await drainedOn(db, 1200);
    // The authority registers what it receives but answers only after 4 s: the answer never reaches the killed node.
    emu.aeat.faults.set({ mode: 'slow', delayMs: 4000, afterProcessing: true });
    const before = emu.aeat.ledger.submissions().length;
    for (let n = 1; n <= 10; n++) expect((await crear(info(n % 2), 'verifactu', body('verifactu', 'KILL-', String(n)))).status).toBe(200);
    for (let i = 0; i < 400 && emu.aeat.ledger.submissions().length === before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(emu.aeat.ledger.submissions().length).toBeGreaterThan(before);
    const owner = db
      .statement(
        `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND CAST(l.classid AS BIGINT) = ?`,
      )
      .all(QUEUE_LOCKS) as { name: string }[];
    expect(owner).toHaveLength(1);
    const victim = owner[0]!.name === 'node-a' ? 0 : 1;
    await killNode(nodes[victim]!);
    emu.aeat.faults.set({ mode: 'none' });
    await drainedOn(db, 1200);

    const batches = db
      .statement(
        `SELECT b.id, b.intentos, q.peticion FROM submission_batches b JOIN submission_requests q ON q.idLote = b.id
         WHERE b.obligado = ? AND b.intentos > 1`,
      )
      .all(VF_NIF) as { id: string; intentos: number; peticion: string }[];
    expect(batches.length, 'the interrupted submission was resent').toBeGreaterThan(0);
    const received = emu.aeat.ledger.submissions().slice(before);
    for (const batch of batches) {
      const sha = createHash('sha256').update(batch.peticion, 'utf8').digest('hex');
      // Sent by the killed node, then again by the other: the same bytes both times.
      expect(received.filter((s) => s.requestSha256 === sha).length, batch.id).toBeGreaterThanOrEqual(2);
    }
    const records = db.statement('SELECT COUNT(*) AS n FROM registros WHERE nifEmisor = ?').get(VF_NIF) as { n: number };
    expect(emu.aeat.ledger.countRecords(VF_NIF)).toBe(Number(records.n));
    expect(emu.aeat.ledger.chainIntact(VF_NIF)).toBe(true);
    const wrong = db.statement("SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS DISTINCT FROM 'registrada'").get() as { n: number };
    expect(Number(wrong.n)).toBe(0);
    expect(chainProblems(db)).toEqual([]);
  });
});
