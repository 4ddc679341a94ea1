import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulators } from '../../support/emulators';

type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
const root = path.resolve(import.meta.dirname, '../../..');
let emu: Emulators;

beforeAll(async () => {
  emu = await startTestEmulators({ waitSeconds: 0 });
  // Slow answers widen the window between sending and committing the reply.
  emu.aeat.faults.set({ mode: 'slow', delayMs: 150 });
});
afterAll(async () => emu.close());

async function startEngine(dataDir: string): Promise<{ child: ChildProcess; info: { url: string; key: string; nif: string } }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/engine-process.ts'), dataDir, emu.aeatUrl], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`engine exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

function ticket(nif: string, numero: string) {
  return JSON.stringify({
    version: '1.0',
    emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
    cabecera: { serie: 'K', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' },
    detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
    totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
  });
}

describe('The engine killed with SIGKILL mid-submission, 10 times', () => {
  it('after each restart every record reaches its final state, each is in the ledger exactly once, every chain is intact', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'crash-'));
    const acknowledged = new Set<string>();
    let counter = 0;
    for (let round = 0; round < 10; round++) {
      const { child, info } = await startEngine(dataDir);
      let sending = true;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const load = (async () => {
        while (sending) {
          const batch = Array.from({ length: 20 }, () => String(counter++));
          await Promise.all(
            batch.map(async (numero) => {
              try {
                const res = await fetch(`${info.url}/v1/verifactu/crear`, {
                  method: 'POST',
                  headers: { 'x-api-key': info.key, 'content-type': 'application/json' },
                  body: ticket(info.nif, numero),
                });
                if (res.status === 200) acknowledged.add(((await res.json()) as { idFactura: string }).idFactura);
              } catch {
                // The engine died under this request: it was never acknowledged.
              }
            }),
          );
        }
      })();
      await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 700)));
      child.kill('SIGKILL');
      await exited;
      sending = false;
      await load;
    }

    // Last start: no load, let the backlog drain.
    emu.aeat.faults.set({ mode: 'none' });
    const { child } = await startEngine(dataDir);
    const db = new Database(path.join(dataDir, 'engine.sqlite'), { readonly: true });
    for (let i = 0; i < 300; i++) {
      const left = db.prepare('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NULL').get() as { n: number };
      if (left.n === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;

    expect(acknowledged.size).toBeGreaterThan(50);
    const ids = new Set((db.prepare('SELECT id FROM invoices').all() as { id: string }[]).map((r) => r.id));
    for (const id of acknowledged) expect(ids.has(id), `acknowledged ${id} lost`).toBe(true);
    const unfinished = db.prepare('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NULL').get() as { n: number };
    expect(unfinished.n).toBe(0);
    const rejected = db.prepare("SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal = 'rechazada'").get() as { n: number };
    expect(rejected.n).toBe(0);
    const registros = db.prepare("SELECT chainSeq, huella, huellaAnterior FROM registros WHERE chainKey = 'test|verifactu|B12345674' ORDER BY chainSeq").all() as {
      chainSeq: number;
      huella: string;
      huellaAnterior: string | null;
    }[];
    registros.forEach((r, i) => {
      expect(r.chainSeq).toBe(i + 1);
      expect(r.huellaAnterior).toBe(i === 0 ? null : registros[i - 1]!.huella);
    });
    // Exactly once in the authority's ledger: as many records as the engine made, and the same chain.
    expect(emu.aeat.ledger.countRecords('B12345674')).toBe(registros.length);
    expect(emu.aeat.ledger.chainIntact('B12345674')).toBe(true);
    const events = db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT registroId) AS d FROM events').get() as { n: number; d: number };
    expect(events.n).toBe(events.d);
    expect(events.n).toBe(registros.length);
    db.close();
  }, 240_000);
});
