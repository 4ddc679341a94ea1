// Chaos campaign across nodes (issue 27, point 4): three engine processes on one PostgreSQL (a
// cluster of this test's own), clients spreading their requests across them. A centralized client
// in each regime (one VeriFactu chain and one TicketBAI Araba chain, several writers at once on
// different nodes) and four tills issuing in both (a VeriFactu and a TicketBAI Gipuzkoa chain each)
// issue while single nodes are SIGKILLed and started again, and once while
// PostgreSQL itself is restarted (`pg_ctl restart -m immediate`: a crash and its recovery). A
// webhook linked to both issuers delivers to a receiver that checks every signature.
// After each round: every invoice answered 200 is in the database and every chain verifies (the
// chain verifier). Once the backlog drains: each record is in the emulators' ledgers exactly once
// with every chain intact, and every event the engine recorded reached the receiver.
// Short form (part of `npm test`): CHAOS_NODE_ROUNDS=3 (two node kills and the PostgreSQL
// restart). Long form: `CHAOS_NODE_ROUNDS=30 npm run test:chaos`. Counts: test-artifacts/chaos-multi-node.json.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../engine/src/db/postgres';
import { aTicketTbai, tbaiEmisor } from '../fixtures/ticketbai';
import { crear } from '../support/engine-child';
import {
  activateDevicesOn,
  chainProblems,
  deliveriesDrainedOn,
  drainedOn,
  killNode,
  startNode,
  VF_DEVICES_ISSUER,
  type EngineNode,
} from '../support/engine-nodes';
import { startTestEmulators } from '../support/emulators';
import { startCluster, type Cluster } from '../support/postgres-cluster';
import { expectedIdEntrega, signatureValid, startReceiver, type Receiver } from '../support/webhook-receiver';

const root = path.resolve(import.meta.dirname, '../..');
/** Rounds of load; each ends with a node SIGKILLed, except the PostgreSQL restart's (the second). */
const ROUNDS = Math.max(2, Number(process.env.CHAOS_NODE_ROUNDS ?? 3));
const NODES = 3;
/** The centralized clients: the demo account's VeriFactu issuer and the Araba TicketBAI one, one chain each. */
const VF_NIF = 'B12345674';
const ARABA = tbaiEmisor('araba');
/** The tills' issuers, in phase activa: a chain per device. */
const VF_DEV = VF_DEVICES_ISSUER;
const TBAI = tbaiEmisor('gipuzkoa');
const DEVICES = ['tpv-1', 'tpv-2', 'tpv-3', 'tpv-4'];
/** Writers of the centralized client: several requests on its one chain at once, on different nodes. */
const CENTRAL_WRITERS = 3;
const SECRETO = 'secreto-de-la-campana-multinodo';
const EVENTOS = ['factura.registrada', 'factura.rechazada', 'factura.anulada'];

type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
let emu: Emulators;
let rx: Receiver;
let cluster: Cluster;
let db: PostgresDatabase;
const nodes: (EngineNode | undefined)[] = [];

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  rx = await startReceiver();
  cluster = await startCluster(mkdtempSync(path.join(tmpdir(), 'pg-chaos-')));
  const admin = new PostgresDatabase(cluster.url('postgres'));
  admin.statement('CREATE DATABASE campaign').run();
  await admin.close();
}, 120_000);

afterAll(async () => {
  for (const node of nodes) if (node) await killNode(node);
  await db?.close();
  cluster?.stop();
  await emu?.close();
  await rx?.close();
});

interface Counts {
  rounds: number;
  nodeKills: number;
  postgresRestarts: number;
  acknowledged: number;
  /** Requests not acknowledged: cut by a kill, or refused (5xx) while PostgreSQL restarted. */
  unacknowledged: number;
  lost: number;
  chainProblems: number;
  ledgerMismatches: number;
  events: number;
  eventsDelivered: number;
  eventsMissing: number;
  duplicateDeliveries: number;
  invalidSignatures: number;
  deliveriesNotEntregada: number;
  verdictsWithoutOneEvent: number;
  /** AEAT records that arrived more than once (resent after a kill, reconciled): never filed twice. */
  resentRecords: number;
  /** Where the time went (ms): the nodes' first start, each round (its restart included), the drain. */
  timings: { startMs: number; roundsMs: number[]; drainMs: number };
}

const writeCounts = (counts: Counts) => {
  mkdirSync(path.join(root, 'test-artifacts'), { recursive: true });
  writeFileSync(path.join(root, 'test-artifacts', 'chaos-multi-node.json'), `${JSON.stringify(counts, null, 2)}\n`);
};

type Regime = 'verifactu' | 'ticketbai';

const body = (regime: Regime, serie: string, numero: string, device?: string) =>
  regime === 'verifactu'
    ? {
        version: '1.0',
        emisor: device ? { ...VF_DEV } : { nif: VF_NIF, nombre: 'COMERCIAL DEMO SL' },
        cabecera: { serie, numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' },
        detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
        totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
        ...(device ? { idMaquina: device } : {}),
      }
    : device
      ? { ...aTicketTbai('gipuzkoa', TBAI, serie, numero), idMaquina: device }
      : aTicketTbai('araba', ARABA, serie, numero);

/** Waits until the test's own connection works again after the PostgreSQL restart (the first statement finds it lost). */
async function reconnected(): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      db.statement('SELECT 1 AS one').get();
      return;
    } catch (error) {
      if (i >= 200) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const count = (sql: string, ...params: string[]) => Number((db.statement(sql).get(...params) as { n: number | string }).n);

describe('three nodes on one PostgreSQL: nodes SIGKILLed and restarted, PostgreSQL restarted, clients spread across the nodes', () => {
  it(`${ROUNDS} rounds: nothing acknowledged lost, every chain verifies, each record filed once, every event delivered`, async () => {
    const began = Date.now();
    const url = cluster.url('campaign');
    const keysFile = path.join(mkdtempSync(path.join(tmpdir(), 'nodes-')), 'keys.json');
    const urls = { aeatUrl: emu.aeatUrl, emulatorsUrl: emu.url };
    // The first node migrates and seeds; the other two start together.
    nodes[0] = await startNode(url, keysFile, urls);
    const rest = await Promise.all(Array.from({ length: NODES - 1 }, () => startNode(url, keysFile, urls)));
    rest.forEach((node, i) => (nodes[i + 1] = node));
    db = new PostgresDatabase(url);
    activateDevicesOn(db, [TBAI.nif, VF_DEV.nif], DEVICES);
    const { key, manage } = nodes[0].info;

    // The webhook, linked to both issuers; the receiver refuses a bad signature and fails some first attempts.
    const accepted = new Map<string, number>();
    const firstBody = new Map<string, Buffer>();
    const failedOnce = new Set<string>();
    let invalidSignatures = 0;
    let bodiesDiffering = 0;
    rx.answer = (delivery) => {
      if (!signatureValid(delivery.raw, delivery.headers['x-service-signature'], SECRETO)) {
        invalidSignatures++;
        return { status: 401 };
      }
      const id = delivery.json.idEntrega;
      const first = firstBody.get(id);
      if (first === undefined) firstBody.set(id, delivery.raw);
      else if (!first.equals(delivery.raw)) bodiesDiffering++;
      if (!failedOnce.has(id) && Math.random() < 1 / 8) {
        failedOnce.add(id);
        return { status: 503 };
      }
      accepted.set(id, (accepted.get(id) ?? 0) + 1);
      return { status: 200 };
    };
    const post = async (route: string, payload: unknown) => {
      const res = await fetch(`${manage}${route}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
      expect(res.status, route).toBeLessThan(300);
      return (await res.json()) as { webhook?: { idWebhook: string } };
    };
    const idWebhook = (await post('/v1/webhooks', { nombre: 'caos-nodos', url: `${rx.url}/caos`, secreto: SECRETO, eventos: EVENTOS })).webhook!.idWebhook;
    await post(`/v1/webhooks/${idWebhook}/clientes`, { clientes: [VF_NIF, VF_DEV.nif, TBAI.nif, ARABA.nif] });

    const counts: Counts = {
      rounds: 0,
      nodeKills: 0,
      postgresRestarts: 0,
      acknowledged: 0,
      unacknowledged: 0,
      lost: 0,
      chainProblems: 0,
      ledgerMismatches: 0,
      events: 0,
      eventsDelivered: 0,
      eventsMissing: 0,
      duplicateDeliveries: 0,
      invalidSignatures: 0,
      deliveriesNotEntregada: 0,
      verdictsWithoutOneEvent: 0,
      resentRecords: 0,
      timings: { startMs: Date.now() - began, roundsMs: [], drainMs: 0 },
    };
    const acknowledged = new Set<string>();
    let numero = 0;
    let spread = 0;
    /** While PostgreSQL restarts, nodes answer 5xx: not acknowledged, and allowed only then. */
    let postgresDown = false;

    for (let round = 0; round < ROUNDS; round++) {
      const roundBegan = Date.now();
      const restartPostgres = round === 1;
      let sending = true;
      let acksThisRound = 0;
      /** One client: its requests one after another, each to the next node; a till alternates regimes. */
      const writer = async (regimes: Regime[], serie: string, device?: string) => {
        for (let turn = 0; sending; turn++) {
          const regime = regimes[turn % regimes.length]!;
          // The next live node: a client spreads its requests and goes elsewhere when one is down.
          const node = nodes[spread++ % NODES];
          if (!node) {
            await new Promise((r) => setTimeout(r, 5));
            continue;
          }
          const n = String(++numero);
          try {
            const res = await crear(node.info, regime, body(regime, `${serie}${regime === 'verifactu' ? 'V' : 'T'}-`, n, device));
            const answer = (await res.json()) as { idFactura?: string; code?: string };
            if (res.status === 200) {
              acknowledged.add(answer.idFactura!);
              acksThisRound++;
              continue;
            }
            counts.unacknowledged++;
            if (!(postgresDown && res.status >= 500)) throw new Error(`${serie}${n}: ${res.status} ${answer.code}`);
          } catch (error) {
            if (error instanceof Error && error.message.startsWith(serie)) throw error;
            // The node died under this request: never acknowledged.
            counts.unacknowledged++;
          }
        }
      };
      const load = Promise.all([
        ...Array.from({ length: CENTRAL_WRITERS }, (_, i) => writer(['verifactu'], `C${i + 1}`)),
        ...Array.from({ length: CENTRAL_WRITERS }, (_, i) => writer(['ticketbai'], `A${i + 1}`)),
        ...DEVICES.map((device) => writer(['verifactu', 'ticketbai'], device, device)),
      ]);
      for (let i = 0; i < 500 && acksThisRound < 60; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 300)));
      let victim: number | undefined;
      if (restartPostgres) {
        postgresDown = true;
        cluster.restartImmediate();
        counts.postgresRestarts++;
        // Issuing goes on through the restart's aftermath for a while.
        for (let i = 0; i < 500 && acksThisRound < 120; i++) await new Promise((r) => setTimeout(r, 20));
      } else {
        victim = round % NODES;
        const node = nodes[victim]!;
        nodes[victim] = undefined;
        await killNode(node);
        counts.nodeKills++;
        // The other nodes carry on: the clients' requests, the dead node's queues and deliveries.
        await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 400)));
      }
      sending = false;
      await load;
      postgresDown = false;
      if (restartPostgres) await reconnected();
      // No node died of the restart or of another's death (only the victim was killed).
      for (const [i, node] of nodes.entries()) expect(node?.child.exitCode ?? null, `round ${round}: node ${i} alive`).toBeNull();
      if (victim !== undefined) nodes[victim] = await startNode(url, keysFile, urls);
      counts.rounds++;
      counts.timings.roundsMs.push(Date.now() - roundBegan);

      // Everything acknowledged is there, and every chain verifies.
      const present = new Set((db.statement('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
      const lost = [...acknowledged].filter((id) => !present.has(id));
      counts.lost += lost.length;
      const problems = chainProblems(db);
      counts.chainProblems += problems.length;
      counts.acknowledged = acknowledged.size;
      writeCounts(counts);
      expect(lost, `round ${round}: acknowledged invoices lost`).toEqual([]);
      expect(problems, `round ${round}`).toEqual([]);
      const webhook = db.statement('SELECT estado FROM webhooks WHERE idWebhook = ?').get(idWebhook);
      expect(webhook, `round ${round}: the webhook`).toMatchObject({ estado: 'activo' });
    }

    // The backlog drains through the nodes; then the ledgers and the receiver are compared with the database.
    const drainBegan = Date.now();
    await drainedOn(db, 1200);
    await deliveriesDrainedOn(db, 1200);
    counts.timings.drainMs = Date.now() - drainBegan;
    const events = db.statement('SELECT registroId, evento, invoiceId FROM events').all() as { registroId: string; evento: string; invoiceId: string }[];
    const missing = events.filter((e) => {
      const id = expectedIdEntrega(idWebhook, e.registroId, e.evento);
      const raw = firstBody.get(id);
      const json = raw && (JSON.parse(raw.toString('utf8')) as { evento: string; datos: { idFactura?: string } });
      return !accepted.has(id) || json?.evento !== e.evento || json.datos.idFactura !== e.invoiceId;
    });
    counts.events = events.length;
    counts.eventsMissing = missing.length;
    counts.eventsDelivered = events.length - missing.length;
    counts.duplicateDeliveries = [...accepted.values()].reduce((sum, n) => sum + n - 1, 0);
    counts.invalidSignatures = invalidSignatures;
    counts.deliveriesNotEntregada = count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE estado <> 'entregada'");
    counts.verdictsWithoutOneEvent = count(
      'SELECT COUNT(*) AS n FROM registros r WHERE estadoEnvioFinal IS NOT NULL AND (SELECT COUNT(*) FROM events e WHERE e.registroId = r.id) <> 1',
    );
    const vfRecords = (nif: string) => count("SELECT COUNT(*) AS n FROM registros WHERE sistemaFiscal = 'verifactu' AND nifEmisor = ?", nif);
    const arabaAltas = count("SELECT COUNT(*) AS n FROM registros WHERE sistemaFiscal = 'ticketbai' AND tipo = 'alta' AND nifEmisor = ?", ARABA.nif);
    const tbChains = db
      .statement("SELECT idMaquina, COUNT(*) AS n FROM registros WHERE sistemaFiscal = 'ticketbai' AND tipo = 'alta' AND nifEmisor = ? GROUP BY idMaquina")
      .all(TBAI.nif) as { idMaquina: string; n: number }[];
    for (const nif of [VF_NIF, VF_DEV.nif]) if (emu.aeat.ledger.records(nif).length !== vfRecords(nif)) counts.ledgerMismatches++;
    if (emu.tbai.ledger.countInvoices('araba', ARABA.nif) !== arabaAltas) counts.ledgerMismatches++;
    for (const { idMaquina, n } of tbChains) if (emu.tbai.ledger.chainHead('gipuzkoa', TBAI.nif, idMaquina)?.length !== Number(n)) counts.ledgerMismatches++;
    counts.resentRecords = emu.aeat.ledger.duplicatesReceived().length;
    counts.chainProblems += chainProblems(db).length;
    writeCounts(counts);

    expect(counts.nodeKills).toBe(ROUNDS - 1);
    expect(counts.postgresRestarts).toBe(1);
    expect(acknowledged.size).toBeGreaterThan(60 * ROUNDS);
    expect(counts.chainProblems).toBe(0);
    expect(missing, 'events never delivered').toEqual([]);
    expect(events.length).toBeGreaterThan(0);
    expect(counts.verdictsWithoutOneEvent, 'records with a verdict and not exactly one event').toBe(0);
    expect(invalidSignatures).toBe(0);
    expect(bodiesDiffering, 'a redelivery is byte-identical').toBe(0);
    expect(counts.deliveriesNotEntregada).toBe(0);
    // Each record at the authorities exactly once, every chain intact there.
    for (const nif of [VF_NIF, VF_DEV.nif]) {
      expect(vfRecords(nif), nif).toBeGreaterThan(0);
      expect(emu.aeat.ledger.records(nif).length, nif).toBe(vfRecords(nif));
      expect(emu.aeat.ledger.chainIntact(nif), nif).toBe(true);
    }
    // The VeriFactu tills' chains: one per device.
    expect(count("SELECT COUNT(DISTINCT chainKey) AS n FROM registros WHERE nifEmisor = ?", VF_DEV.nif)).toBe(DEVICES.length);
    expect(arabaAltas).toBeGreaterThan(0);
    expect(emu.tbai.ledger.countInvoices('araba', ARABA.nif)).toBe(arabaAltas);
    expect(emu.tbai.ledger.chainIntact('araba', ARABA.nif)).toBe(true);
    expect(emu.aeat.ledger.maxBatchSize()).toBeLessThanOrEqual(1000);
    expect(tbChains.map((c) => c.idMaquina).sort()).toEqual(DEVICES);
    for (const { idMaquina, n } of tbChains) {
      expect(emu.tbai.ledger.chainIntact('gipuzkoa', TBAI.nif, idMaquina), idMaquina).toBe(true);
      expect(emu.tbai.ledger.chainHead('gipuzkoa', TBAI.nif, idMaquina)?.length, idMaquina).toBe(Number(n));
    }
    expect(counts.ledgerMismatches).toBe(0);
  }, 120_000 + ROUNDS * 60_000);
});
