// Chaos campaign (issue 15): the whole engine process group is killed with SIGKILL in the middle
// of 8-way issuing bursts (VeriFactu and TicketBAI, four devices in phase activa), while records
// are being filed; the authorities go down and come back (flapping) between rounds. After each
// restart: every invoice answered 200 is present and readable, every chain verifies (the chain
// verifier, from the stored XML), and once the backlog drains each record is in the emulators'
// ledgers exactly once with every chain intact.
// Short form (part of `npm test` / `npm run test:chaos`): CHAOS_KILLS=3. Long form:
// `CHAOS_KILLS=50 npm run test:chaos`; the counts go to test-artifacts/chaos.json.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificarCadenas } from '../../engine/src/verification/instantanea';
import { aTicketTbai, tbaiEmisor } from '../fixtures/ticketbai';
import { activateDevices, crear, drained, startEngineProcess } from '../support/engine-child';
import { startTestEmulators } from '../support/emulators';

type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
const root = path.resolve(import.meta.dirname, '../..');
const KILLS = Number(process.env.CHAOS_KILLS ?? 3);
const VF_NIF = 'B12345674';
const TBAI = tbaiEmisor('gipuzkoa');
const DEVICES = ['tpv-1', 'tpv-2', 'tpv-3', 'tpv-4'];
let emu: Emulators;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
});
afterAll(async () => emu.close());

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
  acknowledged: number;
  lost: number;
  chainProblems: number;
  unreadable: number;
  ledgerMismatches: number;
}

describe('SIGKILL of the engine’s process group during 8-way bursts and filing, authorities flapping', () => {
  it(`${KILLS} kills: nothing acknowledged lost, every chain verifies, each record filed once`, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'chaos-'));
    const acknowledged = new Map<string, string>(); // idFactura → nifEmisor
    const next = new Map<string, number>();
    const counts: Counts = { kills: 0, acknowledged: 0, lost: 0, chainProblems: 0, unreadable: 0, ledgerMismatches: 0 };
    for (let round = 0; round <= KILLS; round++) {
      // Flapping: every other round the authorities are down while the tills sell.
      const down = round % 2 === 1;
      emu.aeat.faults.set(down ? { mode: 'down' } : { mode: 'slow', delayMs: 50, afterProcessing: true });
      emu.tbai.faults.gipuzkoa.set(down ? { mode: 'down' } : { mode: 'none' });
      const { child, info } = await startEngineProcess(dataDir, { aeatUrl: emu.aeatUrl, emulatorsUrl: emu.url }, { detached: true });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (round === 0) activateDevices(dataDir, [VF_NIF, TBAI.nif], DEVICES); // phase activa, the four tills registered

      // After a kill: everything acknowledged is there and readable, and every chain verifies.
      if (round > 0) {
        const db = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
        const present = new Set((db.prepare('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
        db.close();
        const lost = [...acknowledged.keys()].filter((id) => !present.has(id));
        counts.lost += lost.length;
        expect(lost, `round ${round}: acknowledged invoices lost`).toEqual([]);
        const sample = [...acknowledged].slice(-16);
        for (const [id, nif] of sample) {
          const res = await fetch(`${info.url}/v1/facturas/${id}?nifEmisor=${nif}`, { headers: { 'x-api-key': info.key } });
          if (res.status !== 200) counts.unreadable++;
          expect(res.status, `round ${round}: ${id} readable`).toBe(200);
        }
        const v = verificarCadenas(path.join(dataDir, 'engine.sqlite'), {}, new Date());
        counts.chainProblems += v.problemas.length;
        expect(v.problemas, `round ${round}`).toEqual([]);
      }
      if (round === KILLS) {
        emu.aeat.faults.set({ mode: 'none' });
        emu.tbai.faults.gipuzkoa.set({ mode: 'none' });
        const db = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
        await drained(db, 1200);
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
      process.kill(-child.pid!, 'SIGKILL');
      counts.kills++;
      await exited;
      sending = false;
      await load;
      // Written each round, so a long run cut short still tells how far it got.
      counts.acknowledged = acknowledged.size;
      mkdirSync(path.join(root, 'test-artifacts'), { recursive: true });
      writeFileSync(path.join(root, 'test-artifacts', 'chaos.json'), `${JSON.stringify(counts, null, 2)}\n`);
    }
    counts.acknowledged = acknowledged.size;
    writeFileSync(path.join(root, 'test-artifacts', 'chaos.json'), `${JSON.stringify(counts, null, 2)}\n`);
    expect(counts.kills).toBe(KILLS);
    expect(acknowledged.size).toBeGreaterThan(40 * KILLS);
  }, 100_000 + KILLS * 60_000);
});
