// Helpers for the tests that run the engine as a child process (test/support/engine-process.ts),
// kill it with SIGKILL and start it again on the same data dir.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';

const root = path.resolve(import.meta.dirname, '../..');

/** The JSON line engine-process.ts prints when listening. */
export interface EngineProcessInfo {
  url: string;
  billing: string;
  manage: string;
  key: string;
  nif: string;
}

/**
 * Starts engine-process.ts on `dataDir`, filing with the AEAT emulator at `aeatUrl` (and TicketBAI
 * with the emulators at `emulatorsUrl`, when given); resolves once it listens. `detached` puts it
 * in a process group of its own, so a kill of the group takes all of it.
 */
export async function startEngineProcess(
  dataDir: string,
  urls: { aeatUrl: string; emulatorsUrl?: string },
  options: { detached?: boolean } = {},
): Promise<{ child: ChildProcess; info: EngineProcessInfo }> {
  const args = [dataDir, urls.aeatUrl, ...(urls.emulatorsUrl !== undefined ? [urls.emulatorsUrl] : [])];
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/engine-process.ts'), ...args], {
    cwd: root,
    ...(options.detached ? { detached: true } : {}),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`engine exited ${code}`)));
  });
  return { child, info: JSON.parse(line) };
}

/**
 * Phase `activa` (a chain per device) for each NIF of the engine's first account, and `devices`
 * registered for each in TEST, as the service team would do before any traffic.
 */
export function activateDevices(dataDir: string, nifs: readonly string[], devices: readonly string[]): void {
  const db = new Database(path.join(dataDir, 'engine.sqlite'));
  db.pragma('busy_timeout = 5000');
  const now = '2026-11-20T09:00:00.000Z';
  const accountId = (db.prepare('SELECT id FROM accounts LIMIT 1').get() as { id: string }).id;
  db.transaction(() => {
    for (const nif of nifs) {
      db.prepare(
        `INSERT INTO issuer_phases (accountId, nif, faseAltaCapacidad, modoCadena, observandoDesde, activacionSolicitadaEn, ultimaModificacion)
         VALUES (?, ?, 'activa', 'por_dispositivo', NULL, NULL, ?)
         ON CONFLICT (accountId, nif) DO UPDATE SET faseAltaCapacidad = 'activa', modoCadena = 'por_dispositivo'`,
      ).run(accountId, nif, now);
      for (const idMaquina of devices) {
        db.prepare(`INSERT OR IGNORE INTO devices (entorno, nif, idMaquina, etiqueta, creadoEn, activo) VALUES ('test', ?, ?, '', ?, 1)`).run(nif, idMaquina, now);
      }
    }
  })();
  db.close();
}

/**
 * Waits until every record the engine holds has its final state (the engine keeps filing),
 * polling every 50 ms at most `polls` times.
 */
/**
 * The end of a crash round: after a random pause of `minMs` to `minMs + spreadMs`, SIGKILL the
 * engine, wait until it is gone, then stop the load and let the requests it had in flight settle.
 */
export async function killMidLoad(
  child: ChildProcess,
  exited: Promise<void>,
  pause: { minMs: number; spreadMs: number },
  stopLoad: () => Promise<void>,
): Promise<void> {
  await new Promise((r) => setTimeout(r, pause.minMs + Math.floor(Math.random() * pause.spreadMs)));
  child.kill('SIGKILL');
  await exited;
  await stopLoad();
}

export async function drained(db: Database.Database, polls: number): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const left = db.prepare('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NULL').get() as { n: number };
    if (left.n === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the backlog did not drain');
}

/**
 * Waits until the webhook worker has nothing left: every event fanned out (the outbox cursor at
 * the last event) and no delivery pending, polling every 50 ms. A long backlog may take as long
 * as it needs while it shrinks; it fails only after `stallPolls` polls without progress.
 */
export async function deliveriesDrained(db: Database.Database, stallPolls: number): Promise<void> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let sinceProgress = 0; sinceProgress < stallPolls; sinceProgress++) {
    const left = db
      .prepare(
        `SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE estado = 'pendiente')
              + (SELECT COUNT(*) FROM events WHERE rowid > COALESCE((SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'webhookEventCursor'), 0)) AS n`,
      )
      .get() as { n: number };
    if (left.n === 0) return;
    if (left.n < lowest) {
      lowest = left.n;
      sinceProgress = 0;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the webhook deliveries stopped draining (${lowest} left)`);
}

/** Issues one invoice (`POST /v1/{regime}/crear`) on the engine child with its test key. */
export function crear(info: Pick<EngineProcessInfo, 'url' | 'key'>, regime: 'verifactu' | 'ticketbai', invoice: unknown): Promise<Response> {
  return fetch(`${info.url}/v1/${regime}/crear`, {
    method: 'POST',
    headers: { 'x-api-key': info.key, 'content-type': 'application/json' },
    body: JSON.stringify(invoice),
  });
}
