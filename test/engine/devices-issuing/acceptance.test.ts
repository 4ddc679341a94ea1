// Acceptance (issue 13): four devices issue concurrently, in VeriFactu and in TicketBAI, in phase
// `activa`, while a centralized client issues without idMaquina; the engine (a child process) is
// killed with SIGKILL in the middle, several times. After each restart: nothing acknowledged is
// lost, every device's chain is unbroken and holds only its own invoices, the centralized chain
// holds only centralized ones, and the authorities (emulators) received each record once, with
// every chain — one per installation at the AEAT, one per declared device at the treasury — intact.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketbaiChainKey } from '../../../engine/src/regimes/ticketbai/service';
import { verifactuChainKey } from '../../../engine/src/regimes/verifactu/service';
import { aTicketTbai, tbaiEmisor } from '../../fixtures/ticketbai';
import { activateDevices, crear, drained, killMidLoad, startEngineProcess } from '../../support/engine-child';
import { startTestEmulators, type Emulators } from '../../support/emulators';

const VF_NIF = 'B12345674';
const TBAI = tbaiEmisor('gipuzkoa');
const DEVICES = ['tpv-1', 'tpv-2', 'tpv-3', 'tpv-4'];
const KILLS = 2;
let emu: Emulators;
/** The running engine, killed if the test fails midway so no child outlives it. */
let running: ChildProcess | undefined;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  // AEAT registers first and answers later: a kill in between leaves records to resend.
  emu.aeat.faults.set({ mode: 'slow', delayMs: 100, afterProcessing: true });
});
afterAll(async () => {
  if (running && running.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
  await emu.close();
});

const verifactu = (writer: string, numero: string) => ({
  version: '1.0',
  emisor: { nif: VF_NIF, nombre: 'COMERCIAL DEMO SL' },
  cabecera: { serie: `V-${writer}-`, numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' },
  detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
  totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
  ...(writer !== 'central' ? { idMaquina: writer } : {}),
});
const ticketbai = (writer: string, numero: string) => ({
  ...aTicketTbai('gipuzkoa', TBAI, `K-${writer}-`, numero),
  ...(writer !== 'central' ? { idMaquina: writer } : {}),
});

interface ChainRecord {
  chainSeq: number;
  huella: string | null;
  huellaAnterior: string | null;
  idMaquina: string | null;
  estadoEnvioFinal: string | null;
  numeroFactura: string;
}
const chainIn = (db: Database.Database, chainKey: string) =>
  db
    .prepare(
      `SELECT r.chainSeq, r.huella, r.huellaAnterior, r.idMaquina, r.estadoEnvioFinal, i.numeroFactura
       FROM registros r JOIN invoices i ON i.id = r.invoiceId WHERE r.chainKey = ? ORDER BY r.chainSeq`,
    )
    .all(chainKey) as ChainRecord[];

function assertSettled(db: Database.Database, acknowledged: ReadonlySet<string>, round: number): void {
  const at = `after restart ${round}`;
  const ids = new Set((db.prepare('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
  for (const id of acknowledged) expect(ids.has(id), `${at}: acknowledged ${id} lost`).toBe(true);
  expect(db.prepare('SELECT DISTINCT estadoEnvioFinal AS e FROM registros').all(), at).toEqual([{ e: 'registrada' }]);

  for (const writer of [...DEVICES, 'central']) {
    const device = writer === 'central' ? null : writer;
    // VeriFactu: the huella chain of the writer, unbroken, with only the writer's invoices.
    const vf = chainIn(db, verifactuChainKey('test', VF_NIF, device));
    expect(vf.length, `${at}: ${writer} VeriFactu chain is empty`).toBeGreaterThan(0);
    vf.forEach((r, i) => {
      expect(r.chainSeq, at).toBe(i + 1);
      expect(r.huellaAnterior, `${at}: ${writer} VeriFactu link ${i + 1}`).toBe(i === 0 ? null : vf[i - 1]!.huella);
      expect(r.idMaquina, at).toBe(device);
      expect(r.numeroFactura.startsWith(`V-${writer}-`), at).toBe(true);
    });
    // TicketBAI: the signature chain of the writer, contiguous, with only the writer's invoices.
    const tb = chainIn(db, ticketbaiChainKey('test', TBAI.nif, device));
    expect(tb.length, `${at}: ${writer} TicketBAI chain is empty`).toBeGreaterThan(0);
    tb.forEach((r, i) => {
      expect(r.chainSeq, at).toBe(i + 1);
      expect(r.idMaquina, at).toBe(device);
      expect(r.numeroFactura.startsWith(`K-${writer}-`), at).toBe(true);
    });
    // The treasury followed the declared device's chain ('' = no device: the centralized chain).
    expect(emu.tbai.ledger.chainIntact('gipuzkoa', TBAI.nif, device ?? ''), `${at}: ${writer} TicketBAI chain at the treasury`).toBe(true);
    expect(emu.tbai.ledger.chainHead('gipuzkoa', TBAI.nif, device ?? '')?.length, at).toBe(tb.length);
  }
  const vfRecords = (db.prepare("SELECT COUNT(*) AS n FROM registros WHERE sistemaFiscal = 'verifactu'").get() as { n: number }).n;
  // AEAT holds each record once, and one intact chain per installation: four devices + the install.
  expect(emu.aeat.ledger.records(VF_NIF).length, at).toBe(vfRecords);
  expect(emu.aeat.ledger.chainIntact(VF_NIF), at).toBe(true);
  const heads = emu.aeat.ledger.chainHeads(VF_NIF);
  expect(heads.length, at).toBe(DEVICES.length + 1);
  expect(heads.reduce((n, h) => n + h.length, 0), at).toBe(vfRecords);
  const numeros = db.prepare("SELECT numeroInstalacion FROM devices WHERE nif = ? AND entorno = 'test'").all(VF_NIF) as { numeroInstalacion: string | null }[];
  expect(numeros.every((d) => d.numeroInstalacion !== null), at).toBe(true);
}

describe('Four devices and a centralized client issue concurrently in activa, in both regimes, through SIGKILLs', () => {
  it('every chain stays unbroken and independent, nothing acknowledged is lost, the authorities accept every record once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'devices-crash-'));
    const acknowledged = new Set<string>();
    const next = new Map<string, number>();
    let db: Database.Database | undefined;
    for (let round = 0; round <= KILLS; round++) {
      const { child, info } = await startEngineProcess(dataDir, { aeatUrl: emu.aeatUrl, emulatorsUrl: emu.url });
      running = child;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      if (round === 0) activateDevices(dataDir, [VF_NIF, TBAI.nif], DEVICES); // the service team's switch to activa
      db ??= new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
      if (round > 0) {
        await drained(db, 1200); // up to a minute, for a loaded machine
        assertSettled(db, acknowledged, round);
      }
      if (round === KILLS) {
        child.kill('SIGTERM');
        await exited;
        break;
      }
      let sending = true;
      const acksThisRound = new Map<string, number>();
      // Each till (and the centralized client) issues one invoice after another, in each regime.
      const writer = async (name: string, regime: 'verifactu' | 'ticketbai') => {
        while (sending) {
          const key = `${regime}|${name}`;
          const numero = String(next.get(key) ?? 1);
          next.set(key, Number(numero) + 1);
          try {
            const res = await crear(info, regime, regime === 'verifactu' ? verifactu(name, numero) : ticketbai(name, numero));
            const body = (await res.json()) as { idFactura?: string; code?: string };
            if (res.status !== 200) throw new Error(`${key} ${numero}: ${res.status} ${body.code}`);
            acknowledged.add(body.idFactura!);
            acksThisRound.set(key, (acksThisRound.get(key) ?? 0) + 1);
          } catch (error) {
            // The engine died under this request: never acknowledged. Anything else is a failure.
            if (error instanceof Error && error.message.startsWith(key)) throw error;
            return;
          }
        }
      };
      const load = Promise.all([...DEVICES, 'central'].flatMap((name) => [writer(name, 'verifactu'), writer(name, 'ticketbai')]));
      // The kill lands in the middle: every writer of both regimes has issued in this round, and
      // requests and submissions are in flight.
      const writers = (DEVICES.length + 1) * 2;
      for (let i = 0; i < 600 && !([...acksThisRound.values()].filter((n) => n >= 3).length === writers); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await killMidLoad(child, exited, { minMs: 100, spreadMs: 400 }, async () => {
        sending = false;
        await load;
      });
    }
    db?.close();
    expect(acknowledged.size).toBeGreaterThan(50);
  }, 180_000);
});
