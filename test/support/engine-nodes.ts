// Helpers for the tests that run several engine nodes (child processes, engine-node.ts) on one
// PostgreSQL database (issue 27): start and kill nodes, prepare devices, and read back what the
// database holds — chains verified with the engine's chain verifier, the backlog, the webhooks.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ProblemaCadena } from '../../src-shared/api/verificacion';
import type { PostgresDatabase } from '../../engine/src/db/postgres';
import { cadenaSinRegistros, VerificadorCadena, type CabezaCadena, type RegistroLeido } from '../../engine/src/verification/cadenas';
import type { EngineProcessInfo } from './engine-child';
import { tbaiEmisor } from '../fixtures/ticketbai';

const root = path.resolve(import.meta.dirname, '../..');

/** A VeriFactu issuer of the census emulator's seed, beside the demo account's own (B12345674). */
export const VF_DEVICES_ISSUER = { nif: 'B76543214', nombre: 'CAFETERIA LA PRUEBA SL' } as const;

/** The issuers engine-node.ts adds to the demo account in TEST. */
export const NODE_ISSUERS = [
  { ...VF_DEVICES_ISSUER, hacienda: 'verifactu' as const },
  { ...tbaiEmisor('gipuzkoa'), hacienda: 'tbai-gipuzkoa' as const },
  { ...tbaiEmisor('araba'), hacienda: 'tbai-araba' as const },
];

export interface EngineNode {
  child: ChildProcess;
  info: EngineProcessInfo;
  exited: Promise<void>;
}

/**
 * Starts a node on `databaseUrl` (its own data dir, in its own process group); resolves once it
 * listens. Nodes of one group share `keysFile` (the first seeds the account).
 */
export async function startNode(databaseUrl: string, keysFile: string, urls: { aeatUrl: string; emulatorsUrl: string }): Promise<EngineNode> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'node-'));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'test/support/engine-node.ts'), dataDir, databaseUrl, keysFile, urls.aeatUrl, urls.emulatorsUrl],
    { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`engine node exited ${code}`)));
  });
  return { child, info: JSON.parse(line) as EngineProcessInfo, exited };
}

/** SIGKILL of the node's whole process group; resolves once it is gone. */
export async function killNode(node: EngineNode): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) process.kill(-node.child.pid!, 'SIGKILL');
  await node.exited;
}

/** Phase `activa` (a chain per device) for each NIF of the first account, and `devices` registered in TEST. */
export function activateDevicesOn(db: PostgresDatabase, nifs: readonly string[], devices: readonly string[]): void {
  const now = '2026-11-20T09:00:00.000Z';
  db.transaction(() => {
    const accountId = (db.statement('SELECT id FROM accounts LIMIT 1').get() as { id: string }).id;
    for (const nif of nifs) {
      db.statement(
        `INSERT INTO issuer_phases (accountId, nif, faseAltaCapacidad, modoCadena, observandoDesde, activacionSolicitadaEn, ultimaModificacion)
         VALUES (?, ?, 'activa', 'por_dispositivo', NULL, NULL, ?)
         ON CONFLICT (accountId, nif) DO UPDATE SET faseAltaCapacidad = 'activa', modoCadena = 'por_dispositivo'`,
      ).run(accountId, nif, now);
      for (const idMaquina of devices) {
        db.statement(`INSERT OR IGNORE INTO devices (entorno, nif, idMaquina, etiqueta, creadoEn, activo) VALUES ('test', ?, ?, '', ?, 1)`).run(nif, idMaquina, now);
      }
    }
    // The read caches of running nodes learn of the new rows from the generation.
    db.statement('UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1').run();
  });
}

/**
 * Every chain in the database through the engine's chain verifier (verification/cadenas.ts), as
 * `verify-chains` reads them: records in chain order with their stored XML against the chain heads,
 * and outbox rows outside any chain.
 */
export function chainProblems(db: PostgresDatabase): ProblemaCadena[] {
  const heads = new Map(
    db.statement<{ chainKey: string } & CabezaCadena>('SELECT chainKey, length, lastRegistroId FROM chains').all().map((h) => [
      h.chainKey,
      { length: h.length, lastRegistroId: h.lastRegistroId },
    ]),
  );
  const rows = db
    .statement(
      `SELECT r.id, r.chainKey, r.chainSeq, r.entorno, r.nifEmisor, r.sistemaFiscal, r.idMaquina, i.serie, i.numero, d.xml
       FROM registros r LEFT JOIN invoices i ON i.id = r.invoiceId LEFT JOIN registro_documentos d ON d.registroId = r.id
       ORDER BY r.chainKey, r.chainSeq`,
    )
    .all() as (Omit<RegistroLeido, 'serie' | 'numero'> & { serie: string | null; numero: string | null })[];
  const problems: ProblemaCadena[] = [];
  let current: VerificadorCadena | undefined;
  const close = (v: VerificadorCadena) => {
    problems.push(...v.terminar(heads.get(v.clave)).problemas);
    heads.delete(v.clave);
  };
  for (const row of rows) {
    if (current?.clave !== row.chainKey) {
      if (current) close(current);
      current = new VerificadorCadena(row.chainKey);
    }
    current.add({ ...row, serie: row.serie ?? '', numero: row.numero ?? '' });
  }
  if (current) close(current);
  for (const [clave, head] of heads) problems.push(...cadenaSinRegistros(clave, head).problemas);
  const outside = db
    .statement(
      `SELECT j.registroId, j.queueKey FROM submission_jobs j LEFT JOIN registros r ON r.id = j.registroId
       LEFT JOIN registro_documentos d ON d.registroId = r.id LEFT JOIN chains c ON c.chainKey = r.chainKey
       WHERE r.id IS NULL OR d.registroId IS NULL OR c.chainKey IS NULL OR r.chainSeq > c.length`,
    )
    .all() as { registroId: string; queueKey: string }[];
  for (const o of outside) problems.push({ tipo: 'fuera_de_cadena', clave: o.queueKey, idRegistro: o.registroId, serie: '', numero: '' });
  return problems;
}

/** Waits until every record has its final state, polling every 50 ms at most `polls` times. */
export async function drainedOn(db: PostgresDatabase, polls: number): Promise<void> {
  for (let i = 0; i < polls; i++) {
    const left = db.statement('SELECT COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NULL').get() as { n: number };
    if (Number(left.n) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  const states = db.statement('SELECT sistemaFiscal, estadoEnvio, COUNT(*) AS n FROM registros WHERE estadoEnvioFinal IS NULL GROUP BY sistemaFiscal, estadoEnvio').all();
  const queues = db.statement('SELECT queueKey, siguienteEnvioEn, reintentoEn, fallosSeguidos, ultimoError FROM submission_queues').all();
  throw new Error(`the backlog did not drain: ${JSON.stringify({ states, queues })}`);
}

/** Waits until every event is fanned out and no delivery is pending; fails after `stallPolls` polls (50 ms) without progress. */
export async function deliveriesDrainedOn(db: PostgresDatabase, stallPolls: number): Promise<void> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let sinceProgress = 0; sinceProgress < stallPolls; sinceProgress++) {
    const left = db
      .statement(
        `SELECT (SELECT COUNT(*) FROM webhook_deliveries WHERE estado = 'pendiente')
              + (SELECT COUNT(*) FROM events WHERE rowid > COALESCE((SELECT CAST(value AS INTEGER) FROM settings WHERE key = 'webhookEventCursor'), 0)) AS n`,
      )
      .get() as { n: number };
    if (Number(left.n) === 0) return;
    if (Number(left.n) < lowest) {
      lowest = Number(left.n);
      sinceProgress = 0;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the webhook deliveries stopped draining (${lowest} left)`);
}
