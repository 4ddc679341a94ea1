// Chaos in «NO VERI*FACTU» (issue 32): the engine process is killed with SIGKILL in the middle of
// 8-way issuing bursts on an installation in that mode, and started again on the same data dir.
// After the rounds: every invoice answered 200 is there and readable, every record carries a
// signature that verifies, every chain verifies from the stored XML, nothing was queued for
// filing, and anomaly detection finds nothing in the records or the event log (whose start event
// is there once, and whose detection runs after each start are chained and signed).
// CHAOS_KILLS rounds (3 by default, as the VeriFactu campaign).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verificarFirma } from '../../engine/src/no-verifactu/firma';
import { verificarCadenas } from '../../engine/src/verification/instantanea.sqlite';
import { admin } from '../support/admin-cli';
import { crear, killMidLoad, startEngineProcess } from '../support/engine-child';
import { startTestEmulators } from '../support/emulators';

const KILLS = Number(process.env.CHAOS_KILLS ?? 3);
let emu: Awaited<ReturnType<typeof startTestEmulators>>;
let engine: ChildProcess | undefined;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
});
afterAll(async () => {
  if (engine && engine.exitCode === null && engine.signalCode === null) engine.kill('SIGKILL');
  await emu.close();
});

const factura = (nif: string, numero: string) => ({
  version: '1.0',
  emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
  cabecera: { serie: 'K', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
  detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
  totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
});

it(`${KILLS} kills while issuing in NO VERI*FACTU: nothing acknowledged lost, every record signed, chains and event log intact`, async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'chaos-novf-'));
  const acknowledged: string[] = [];
  let numero = 0;
  let nif = '';
  for (let round = 0; round <= KILLS; round++) {
    const { child, info } = await startEngineProcess(dataDir, { aeatUrl: emu.aeatUrl });
    engine = child;
    nif = info.nif;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (round === 0) {
      expect(await admin(dataDir, 'issuer', 'mode', nif, 'no_verifactu')).toMatchObject({ modoSif: 'no_verifactu', cambiado: true });
    }
    for (const id of acknowledged.slice(-16)) {
      const res = await fetch(`${info.url}/v1/facturas/${id}?nifEmisor=${nif}`, { headers: { 'x-api-key': info.key } });
      expect(res.status, `round ${round}: ${id} readable`).toBe(200);
    }
    if (round === KILLS) {
      child.kill('SIGTERM');
      await exited;
      break;
    }
    // 8-way bursts until the kill.
    let stop = false;
    const workers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const n = String(++numero);
        try {
          const res = await crear(info, 'verifactu', factura(nif, n));
          if (res.status === 200) acknowledged.push(((await res.json()) as { idFactura: string }).idFactura);
          else await res.arrayBuffer();
        } catch {
          // The engine died under this request: not acknowledged.
        }
      }
    });
    await killMidLoad(child, exited, { minMs: 300, spreadMs: 500 }, async () => {
      stop = true;
      await Promise.all(workers);
    });
  }
  engine = undefined;
  expect(acknowledged.length).toBeGreaterThan(0);

  const file = path.join(dataDir, 'engine.sqlite');
  const db = new Database(file, { readonly: true });
  try {
    const present = new Set((db.prepare('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
    expect(acknowledged.filter((id) => !present.has(id)), 'acknowledged invoices lost').toEqual([]);
    const registros = db.prepare('SELECT r.id, r.estadoEnvio, d.xml FROM registros r JOIN registro_documentos d ON d.registroId = r.id').all() as { id: string; estadoEnvio: string; xml: string }[];
    expect(registros.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(registros.filter((r) => r.estadoEnvio !== 'no_remitida' || !verificarFirma(r.xml).valid).map((r) => r.id), 'records unsigned, or not kept').toEqual([]);
    expect(db.prepare('SELECT COUNT(*) AS n FROM submission_jobs').get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM sif_eventos WHERE tipoEvento = '01'").get()).toEqual({ n: 1 });
  } finally {
    db.close();
  }
  const chains = verificarCadenas(file, { nif }, new Date());
  expect(chains.problemas).toEqual([]);
  // Detection over everything (records and events), from another process on the data dir.
  const deteccion = (await admin(dataDir, 'anomalias', nif)) as { anomalias: unknown[]; registrosAnalizados: number };
  expect(deteccion.anomalias).toEqual([]);
  expect(deteccion.registrosAnalizados).toBeGreaterThanOrEqual(acknowledged.length);
}, 120_000 + KILLS * 60_000); // a campaign, not a unit: ≈ 55 s on a loaded 2-core machine
