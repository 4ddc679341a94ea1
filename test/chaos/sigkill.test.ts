// Chaos campaign (issue 15): the whole engine process group is killed with SIGKILL in the middle
// of 8-way issuing bursts (VeriFactu and TicketBAI, four devices in phase activa), while records
// are being filed and while webhook deliveries are on the wire; the authorities go down and come
// back (flapping) between rounds. A webhook linked to both issuers delivers to a receiver this
// test runs, which checks each signature itself, answers some deliveries slowly and fails some
// first attempts with 503. After each restart: every invoice answered 200 is present and
// readable, every chain verifies (the chain verifier, from the stored XML). Once the backlog
// drains: each record is in the emulators' ledgers exactly once with every chain intact, and every
// event the engine recorded reached the receiver at least once, signed, byte-identical on repeats.
// Short form (part of `npm test` / `npm run test:chaos`): CHAOS_KILLS=3. Long form:
// `CHAOS_KILLS=50 npm run test:chaos`; the counts go to test-artifacts/chaos.json.
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificarCadenas } from '../../engine/src/verification/instantanea.sqlite';
import { aTicketTbai, tbaiEmisor } from '../fixtures/ticketbai';
import { activateDevices, crear, deliveriesDrained, drained, startEngineProcess, type EngineProcessInfo } from '../support/engine-child';
import { startTestEmulators } from '../support/emulators';
import { expectedIdEntrega, signatureValid, startReceiver, type Receiver } from '../support/webhook-receiver';

type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
const root = path.resolve(import.meta.dirname, '../..');
const KILLS = Number(process.env.CHAOS_KILLS ?? 3);
const VF_NIF = 'B12345674';
const TBAI = tbaiEmisor('gipuzkoa');
const DEVICES = ['tpv-1', 'tpv-2', 'tpv-3', 'tpv-4'];
const SECRETO = 'secreto-de-la-campana-de-caos';
const EVENTOS = ['factura.registrada', 'factura.rechazada', 'factura.anulada'];
let emu: Emulators;
let rx: Receiver;
/** The engine of the current round: killed with its group if the test fails while it runs. */
let engine: ChildProcess | undefined;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  rx = await startReceiver();
});
afterAll(async () => {
  if (engine && engine.exitCode === null && engine.signalCode === null) process.kill(-engine.pid!, 'SIGKILL');
  await emu.close();
  await rx.close();
});

/** What the receiver made of the deliveries: accepted (2xx) per idEntrega, bodies, bad signatures. */
interface Reception {
  accepted: Map<string, number>;
  firstBody: Map<string, Buffer>;
  bodiesDiffering: number;
  invalidSignatures: number;
}

/**
 * The receiver's behaviour: a bad signature is refused (401); about one delivery in six fails its
 * first attempt (503) and is retried by the engine; about one in four is answered slowly, so
 * deliveries are on the wire when the engine is killed. Never more than one failure per delivery:
 * the engine's 3 retries stay for the kills and time-outs.
 */
function receiveDeliveries(receiver: Receiver): Reception {
  const reception: Reception = { accepted: new Map(), firstBody: new Map(), bodiesDiffering: 0, invalidSignatures: 0 };
  const failedOnce = new Set<string>();
  receiver.answer = (delivery) => {
    if (!signatureValid(delivery.raw, delivery.headers['x-service-signature'], SECRETO)) {
      reception.invalidSignatures++;
      return { status: 401 };
    }
    const id = delivery.json.idEntrega;
    const first = reception.firstBody.get(id);
    if (first === undefined) reception.firstBody.set(id, delivery.raw);
    else if (!first.equals(delivery.raw)) reception.bodiesDiffering++;
    if (!failedOnce.has(id) && Math.random() < 1 / 6) {
      failedOnce.add(id);
      return { status: 503 };
    }
    reception.accepted.set(id, (reception.accepted.get(id) ?? 0) + 1);
    return Math.random() < 0.25 ? { status: 200, delayMs: 100 + Math.floor(Math.random() * 300) } : { status: 200 };
  };
  return reception;
}

/** The webhook of the campaign (management API, the account's test key), linked to both issuers. */
async function registerWebhook(info: EngineProcessInfo): Promise<string> {
  const call = async (url: string, body: unknown) => {
    const res = await fetch(`${info.manage}${url}`, {
      method: 'POST',
      headers: { 'x-api-key': info.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, url).toBeLessThan(300);
    return (await res.json()) as { webhook?: { idWebhook: string } };
  };
  const created = await call('/v1/webhooks', { nombre: 'caos', url: `${rx.url}/caos`, secreto: SECRETO, eventos: EVENTOS });
  const idWebhook = created.webhook!.idWebhook;
  await call(`/v1/webhooks/${idWebhook}/clientes`, { clientes: [VF_NIF, TBAI.nif] });
  return idWebhook;
}

const body = (regime: 'verifactu' | 'ticketbai', device: string, numero: string) =>
  regime === 'verifactu'
    ? {
        version: '1.0',
        emisor: { nif: VF_NIF, nombre: 'COMERCIAL DEMO SL' },
        cabecera: { serie: `C-${device}-`, numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' },
        detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
        totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
        idMaquina: device,
      }
    : { ...aTicketTbai('gipuzkoa', TBAI, `K-${device}-`, numero), idMaquina: device };

interface Counts {
  kills: number;
  /** Kills while the receiver had delivery requests open (sent, not answered yet). */
  killsDuringDeliveries: number;
  acknowledged: number;
  lost: number;
  chainProblems: number;
  unreadable: number;
  ledgerMismatches: number;
  /** Rows of the engine's events table at the end. */
  events: number;
  /** Records with a final verdict and not exactly one event (the outbox the webhooks read). */
  verdictsWithoutOneEvent: number;
  /** Events whose delivery the receiver accepted at least once, signed, with the event's invoice. */
  eventsDelivered: number;
  eventsMissing: number;
  /** Accepted deliveries beyond the first of each idEntrega (redeliveries after kills). */
  duplicateDeliveries: number;
  invalidSignatures: number;
  /** Deliveries the engine gave up on (`fallida`) or never recorded as delivered. */
  deliveriesNotEntregada: number;
  /** Attempts the engine recorded as failed: the receiver's 503s and any time-outs. */
  failedAttempts: number;
}

const writeCounts = (counts: Counts) => {
  mkdirSync(path.join(root, 'test-artifacts'), { recursive: true });
  writeFileSync(path.join(root, 'test-artifacts', 'chaos.json'), `${JSON.stringify(counts, null, 2)}\n`);
};

describe('SIGKILL of the engine’s process group during 8-way bursts, filing and webhook deliveries, authorities flapping', () => {
  it(`${KILLS} kills: nothing acknowledged lost, every chain verifies, each record filed once, every event delivered`, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'chaos-'));
    const acknowledged = new Map<string, string>(); // idFactura → nifEmisor
    const next = new Map<string, number>();
    const reception = receiveDeliveries(rx);
    let idWebhook = '';
    const counts: Counts = {
      kills: 0,
      killsDuringDeliveries: 0,
      acknowledged: 0,
      lost: 0,
      chainProblems: 0,
      unreadable: 0,
      ledgerMismatches: 0,
      events: 0,
      verdictsWithoutOneEvent: 0,
      eventsDelivered: 0,
      eventsMissing: 0,
      duplicateDeliveries: 0,
      invalidSignatures: 0,
      deliveriesNotEntregada: 0,
      failedAttempts: 0,
    };
    for (let round = 0; round <= KILLS; round++) {
      // Flapping: every other round the authorities are down while the tills sell.
      const down = round % 2 === 1;
      emu.aeat.faults.set(down ? { mode: 'down' } : { mode: 'slow', delayMs: 50, afterProcessing: true });
      emu.tbai.faults.gipuzkoa.set(down ? { mode: 'down' } : { mode: 'none' });
      const { child, info } = await startEngineProcess(dataDir, { aeatUrl: emu.aeatUrl, emulatorsUrl: emu.url }, { detached: true });
      engine = child;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (round === 0) {
        activateDevices(dataDir, [VF_NIF, TBAI.nif], DEVICES); // phase activa, the four tills registered
        idWebhook = await registerWebhook(info);
      }

      // After a kill and the restart: what was acknowledged reads back through the API.
      if (round > 0) {
        const sample = [...acknowledged].slice(-16);
        for (const [id, nif] of sample) {
          const res = await fetch(`${info.url}/v1/facturas/${id}?nifEmisor=${nif}`, { headers: { 'x-api-key': info.key } });
          if (res.status !== 200) counts.unreadable++;
          expect(res.status, `round ${round}: ${id} readable`).toBe(200);
        }
      }
      if (round === KILLS) {
        emu.aeat.faults.set({ mode: 'none' });
        emu.tbai.faults.gipuzkoa.set({ mode: 'none' });
        const db = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
        await drained(db, 1200);
        await deliveriesDrained(db, 1200); // a minute without progress; a long form's backlog takes longer
        // Every event the engine recorded reached the receiver at least once, signed.
        const events = db.prepare('SELECT registroId, evento, invoiceId FROM events').all() as { registroId: string; evento: string; invoiceId: string }[];
        const missing = events.filter((e) => {
          const id = expectedIdEntrega(idWebhook, e.registroId, e.evento);
          const body = reception.firstBody.get(id);
          const json = body && (JSON.parse(body.toString('utf8')) as { evento: string; datos: { idFactura?: string } });
          return !reception.accepted.has(id) || json?.evento !== e.evento || json.datos.idFactura !== e.invoiceId;
        });
        // Each final verdict wrote its event once: none skipped by a kill, none doubled by a reconciled resend.
        const verdictsWithoutOneEvent = (
          db
            .prepare('SELECT COUNT(*) AS n FROM registros r WHERE estadoEnvioFinal IS NOT NULL AND (SELECT COUNT(*) FROM events e WHERE e.registroId = r.id) <> 1')
            .get() as { n: number }
        ).n;
        counts.events = events.length;
        counts.verdictsWithoutOneEvent = verdictsWithoutOneEvent;
        counts.eventsMissing = missing.length;
        counts.eventsDelivered = events.length - missing.length;
        counts.duplicateDeliveries = [...reception.accepted.values()].reduce((sum, n) => sum + n - 1, 0);
        counts.invalidSignatures = reception.invalidSignatures;
        counts.deliveriesNotEntregada = (db.prepare("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE estado <> 'entregada'").get() as { n: number }).n;
        counts.failedAttempts = (db.prepare('SELECT COUNT(*) AS n FROM webhook_delivery_attempts WHERE error IS NOT NULL').get() as { n: number }).n;
        counts.acknowledged = acknowledged.size;
        writeCounts(counts);
        expect(missing, 'events never delivered').toEqual([]);
        expect(events.length).toBeGreaterThan(0);
        expect(verdictsWithoutOneEvent, 'records with a verdict and not exactly one event').toBe(0);
        expect(reception.invalidSignatures).toBe(0);
        expect(counts.deliveriesNotEntregada, 'deliveries the engine did not record as delivered').toBe(0);
        expect(reception.bodiesDiffering, 'a redelivery is byte-identical').toBe(0);
        // Each record at the authority exactly once, every chain intact there.
        const vfRecords = (db.prepare("SELECT COUNT(*) AS n FROM registros WHERE sistemaFiscal = 'verifactu'").get() as { n: number }).n;
        const tbChains = db.prepare("SELECT idMaquina, COUNT(*) AS n FROM registros WHERE sistemaFiscal = 'ticketbai' AND tipo = 'alta' GROUP BY idMaquina").all() as { idMaquina: string; n: number }[];
        db.close();
        if (emu.aeat.ledger.records(VF_NIF).length !== vfRecords) counts.ledgerMismatches++;
        expect(emu.aeat.ledger.records(VF_NIF).length).toBe(vfRecords);
        expect(emu.aeat.ledger.chainIntact(VF_NIF)).toBe(true);
        for (const { idMaquina, n } of tbChains) {
          expect(emu.tbai.ledger.chainIntact('gipuzkoa', TBAI.nif, idMaquina), idMaquina).toBe(true);
          if (emu.tbai.ledger.chainHead('gipuzkoa', TBAI.nif, idMaquina)?.length !== n) counts.ledgerMismatches++;
          expect(emu.tbai.ledger.chainHead('gipuzkoa', TBAI.nif, idMaquina)?.length, idMaquina).toBe(n);
        }
        child.kill('SIGTERM');
        await exited;
        break;
      }

      let sending = true;
      let acksThisRound = 0;
      // 8 writers: each of the four tills sells in both regimes, one sale after another.
      const writer = async (device: string, regime: 'verifactu' | 'ticketbai') => {
        while (sending) {
          const key = `${regime}|${device}`;
          const numero = String(next.get(key) ?? 1);
          next.set(key, Number(numero) + 1);
          try {
            const res = await crear(info, regime, body(regime, device, numero));
            const answer = (await res.json()) as { idFactura?: string; code?: string };
            if (res.status !== 200) throw new Error(`${key} ${numero}: ${res.status} ${answer.code}`);
            acknowledged.set(answer.idFactura!, regime === 'verifactu' ? VF_NIF : TBAI.nif);
            acksThisRound++;
          } catch (error) {
            // The engine died under this request: never acknowledged. Anything else fails the test.
            if (error instanceof Error && error.message.startsWith(key)) throw error;
            return;
          }
        }
      };
      const load = Promise.all(DEVICES.flatMap((d) => [writer(d, 'verifactu'), writer(d, 'ticketbai')]));
      for (let i = 0; i < 600 && acksThisRound < 40; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 300)));
      // While the authorities answer, verdicts keep coming: aim the kill at deliveries on the wire.
      if (!down) for (let i = 0; i < 250 && rx.open === 0; i++) await new Promise((r) => setTimeout(r, 20));
      if (rx.open > 0) counts.killsDuringDeliveries++;
      process.kill(-child.pid!, 'SIGKILL');
      counts.kills++;
      await exited;
      sending = false;
      await load;
      // What the kill left on disk: everything acknowledged is there and every chain verifies.
      // Checked before the restart: the verifier is synchronous, and while it holds this process the
      // receiver could not answer a running engine's deliveries (time-outs that would suspend the webhook).
      const left = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
      const present = new Set((left.prepare('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
      const webhook = left.prepare('SELECT estado, ultimoError FROM webhooks').get();
      left.close();
      const lost = [...acknowledged.keys()].filter((id) => !present.has(id));
      counts.lost += lost.length;
      const v = verificarCadenas(path.join(dataDir, 'engine.sqlite'), {}, new Date());
      counts.chainProblems += v.problemas.length;
      // Written each round, so a long run cut short still tells how far it got.
      counts.acknowledged = acknowledged.size;
      writeCounts(counts);
      expect(lost, `kill ${counts.kills}: acknowledged invoices lost`).toEqual([]);
      expect(v.problemas, `kill ${counts.kills}`).toEqual([]);
      // Suspended, it would drop the events of the rest of the campaign: fail now, saying why.
      expect(webhook, `kill ${counts.kills}: the webhook`).toMatchObject({ estado: 'activo' });
    }
    expect(counts.kills).toBe(KILLS);
    expect(counts.killsDuringDeliveries).toBeGreaterThan(0);
    expect(acknowledged.size).toBeGreaterThan(40 * KILLS);
  }, 120_000 + KILLS * 120_000); // generous: a loaded 2-core machine, and the chain verifier reads every stored XML each round
});
