import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database, MMAP_BYTES, PAGE_CACHE_KIB } from '../../../engine/src/db/database';
import { migrations } from '../../../engine/src/db/migrations';

function schemaOf(db: Database): unknown[] {
  return db.sqlite.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'kysely_%' ORDER BY name").all();
}

describe('Migrations run on an empty database and again on a migrated one without change', () => {
  it('applies every migration once, then nothing', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mig-'));
    const db = SqliteDatabase.open(dir);
    const first = await db.migrate();
    expect(first.results?.map((r) => r.migrationName)).toEqual(Object.keys(migrations).sort());
    const before = schemaOf(db);
    await db.close();
    const again = SqliteDatabase.open(dir);
    const second = await again.migrate();
    expect(second.results).toEqual([]);
    expect(schemaOf(again)).toEqual(before);
    await again.close();
  });

  it('migration names are ISO dates and sort in the order they were written', () => {
    for (const name of Object.keys(migrations)) expect(name).toMatch(/^\d{8}T\d{4}Z-[a-z0-9-]+$/);
  });

  it('tables are STRICT and the database runs WAL with synchronous=FULL and foreign keys', async () => {
    const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-')));
    await db.migrate();
    const tables = db.sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type='table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%'").all() as { name: string; sql: string }[];
    for (const table of tables) expect(table.sql, table.name).toMatch(/\)\s*STRICT$/);
    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    // Concurrent writers (admin CLI, a second connection) wait instead of failing at once with SQLITE_BUSY.
    expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBeGreaterThanOrEqual(1000);
    // Issuing's hot B-tree pages stay cached between batches (negative = KiB); temp B-trees in memory.
    expect(db.sqlite.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    expect(db.sqlite.pragma('mmap_size', { simple: true })).toBe(MMAP_BYTES);
    expect(db.sqlite.pragma('temp_store', { simple: true })).toBe(2);
    await db.close();
  });
});

describe('20261122T1100Z-foundation', () => {
  it('creates accounts, keys, quota, issuers and declarations that accept a row each', async () => {
    const db = await migratedTo('20261122T1100Z-foundation');
    db.sqlite.exec(`
      INSERT INTO accounts VALUES ('a','B12345674','X','basico','activa',1,NULL,NULL,'t');
      INSERT INTO api_keys VALUES ('k','a','test','h','sk_test_',  't',NULL,NULL);
      INSERT INTO quota_usage VALUES ('k','2026-11',3,NULL,NULL);
      INSERT INTO issuers VALUES ('i','a','test','B12345674','X','verifactu','activo','pendiente','unica','no_contratada','t','t');
    `);
    expect(() => db.sqlite.exec(`INSERT INTO api_keys VALUES ('k2','a','prod','h2','p','t',NULL,NULL)`)).toThrow();
    expect(() => db.sqlite.exec(`INSERT INTO issuers VALUES ('i2','a','test','B12345674','Y','verifactu','activo','pendiente','unica','no_contratada','t','t')`)).toThrow(/UNIQUE/);
    await db.close();
  });
});

/** A database migrated up to and including `name` only: what that migration adds on its own. */
async function migratedTo(name: string): Promise<Database> {
  const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-')));
  const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
  const result = await migrator.migrateTo(name);
  expect(result.error).toBeUndefined();
  expect(result.results?.at(-1)?.migrationName).toBe(name);
  return db;
}

function tableNames(db: Database): string[] {
  return (db.sqlite.prepare("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'kysely_%' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
}

function columnTypes(db: Database, table: string): Record<string, string> {
  const cols = db.sqlite.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string }[];
  return Object.fromEntries(cols.map((c) => [c.name, c.type]));
}

const SEED_ACCOUNT = `INSERT INTO accounts VALUES ('a','B12345674','X','basico','activa',1,NULL,NULL,'t');`;
const invoiceRow = (id: string, numero: string, importe = "'121.00'") =>
  `INSERT INTO invoices VALUES ('${id}','a','test','B12345674','verifactu',NULL,'A','${numero}','02-03-2026','A${numero}','F1',${importe},'21.00',NULL,'pendiente_proceso',NULL,NULL,NULL,NULL,NULL,'t','t')`;
const registroRow = (id: string, invoiceId: string, chainSeq: string) =>
  `INSERT INTO registros VALUES ('${id}','${invoiceId}','a','test','B12345674','verifactu','alta','pendiente','pendiente_proceso',NULL,'test|verifactu|B12345674',${chainSeq},'H',NULL,NULL,NULL,NULL,NULL,NULL,NULL,'{}','t',NULL,'t')`;

describe('20261122T1200Z-invoices-records', () => {
  it('creates the invoice, record, document, chain, reference and job tables, all STRICT', async () => {
    const before = await migratedTo('20261122T1100Z-foundation');
    const tablesBefore = tableNames(before);
    await before.close();
    const db = await migratedTo('20261122T1200Z-invoices-records');
    const added = tableNames(db).filter((n) => !tablesBefore.includes(n));
    expect(added.sort()).toEqual(['chains', 'invoice_documentos', 'invoice_refs', 'invoices', 'registro_documentos', 'registros', 'settings', 'submission_jobs']);
    for (const table of added) {
      const { sql } = db.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(table) as { sql: string };
      expect(sql, table).toMatch(/\)\s*STRICT$/);
    }
    await db.close();
  });

  it('amounts are TEXT (decimal strings, never floats), chainSeq an INTEGER', async () => {
    const db = await migratedTo('20261122T1200Z-invoices-records');
    expect(columnTypes(db, 'invoices')).toMatchObject({ importeTotal: 'TEXT', cuotaTotal: 'TEXT' });
    expect(columnTypes(db, 'registros')).toMatchObject({ chainSeq: 'INTEGER', huella: 'TEXT', huellaAnterior: 'TEXT' });
    db.sqlite.exec(SEED_ACCOUNT + invoiceRow('f1', '1', "'0.10'"));
    // Stored as written: "0.10" stays "0.10" (a REAL column would give 0.1).
    expect(db.sqlite.prepare("SELECT importeTotal, typeof(importeTotal) AS t FROM invoices WHERE id='f1'").get()).toEqual({ importeTotal: '0.10', t: 'text' });
    // STRICT: a value that is not losslessly an INTEGER is refused, not stored as text.
    expect(() => db.sqlite.exec(registroRow('r1', 'f1', "'uno'"))).toThrow(/cannot store TEXT value in INTEGER column/);
    await db.close();
  });

  it('an invoice identity (entorno, nifEmisor, serie, numero, fechaExpedicion) is UNIQUE', async () => {
    const db = await migratedTo('20261122T1200Z-invoices-records');
    db.sqlite.exec(SEED_ACCOUNT + invoiceRow('f1', '1'));
    expect(() => db.sqlite.exec(invoiceRow('f2', '1'))).toThrow(/UNIQUE constraint failed: invoices\.entorno/);
    expect(() => db.sqlite.exec(invoiceRow('f3', '2'))).not.toThrow();
    await db.close();
  });

  it('UNIQUE(chainKey, chainSeq): two records can never take the same place in a chain (no fork)', async () => {
    const db = await migratedTo('20261122T1200Z-invoices-records');
    db.sqlite.exec(SEED_ACCOUNT + invoiceRow('f1', '1') + ';' + invoiceRow('f2', '2') + ';' + registroRow('r1', 'f1', '1'));
    expect(() => db.sqlite.exec(registroRow('r2', 'f2', '1'))).toThrow(/UNIQUE constraint failed: registros\.chainKey, registros\.chainSeq/);
    expect(() => db.sqlite.exec(registroRow('r3', 'f2', '2'))).not.toThrow();
    // A record belongs to an existing invoice (foreign key).
    expect(() => db.sqlite.exec(registroRow('r4', 'nope', '3'))).toThrow(/FOREIGN KEY/);
    await db.close();
  });
});

describe('20261122T1300Z-submission', () => {
  it('adds queues, batches, events and the pause control (STRICT), and idLote on jobs', async () => {
    const before = await migratedTo('20261122T1200Z-invoices-records');
    const tablesBefore = tableNames(before);
    expect(columnTypes(before, 'submission_jobs')).not.toHaveProperty('idLote');
    await before.close();
    const db = await migratedTo('20261122T1300Z-submission');
    const added = tableNames(db).filter((n) => !tablesBefore.includes(n));
    expect(added.sort()).toEqual(['events', 'submission_batches', 'submission_control', 'submission_queues']);
    for (const table of added) {
      const { sql } = db.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = ?").get(table) as { sql: string };
      expect(sql, table).toMatch(/\)\s*STRICT$/);
    }
    expect(columnTypes(db, 'submission_jobs')).toMatchObject({ idLote: 'TEXT' });
    const indexes = (db.sqlite.prepare("SELECT name FROM sqlite_master WHERE type='index' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
    expect(indexes).toEqual(expect.arrayContaining(['submission_batches_queue', 'submission_jobs_lote', 'registros_lote', 'events_invoice', 'registros_in_flight']));
    // An event points at a real invoice and record.
    db.sqlite.exec(SEED_ACCOUNT + invoiceRow('f1', '1') + ';' + registroRow('r1', 'f1', '1'));
    db.sqlite.exec("INSERT INTO events VALUES ('e1','factura.registrada','a','test','B12345674','f1','r1','{}','t')");
    expect(() => db.sqlite.exec("INSERT INTO events VALUES ('e2','factura.registrada','a','test','B12345674','f1','nope','{}','t')")).toThrow(/FOREIGN KEY/);
    await db.close();
  });
});

// 20261122T1500Z-webhooks is tested in test/engine/webhooks/store.test.ts and
// 20261122T1600Z-clients (its data migration of existing issuers) in test/engine/clients/exencion.test.ts.

describe('20261125T1616Z-read-cache-generation', () => {
  it('every insert, update and delete of an account, key or issuer bumps the generation; other tables do not', async () => {
    const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-')));
    await db.migrate();
    const generation = () => (db.sqlite.prepare('SELECT generation FROM read_cache_generation').get() as { generation: number }).generation;
    const steps = [
      "INSERT INTO accounts VALUES ('a','B12345674','X','basico','activa',1,NULL,NULL,'t')",
      "INSERT INTO api_keys VALUES ('k','a','test','h','sk_test_','t',NULL,NULL)",
      "INSERT INTO issuers VALUES ('i','a','test','B12345674','X','verifactu','activo','pendiente','t','t')",
      "UPDATE accounts SET facturacionActiva = 0",
      "UPDATE api_keys SET revocadoEn = 't2'",
      "UPDATE issuers SET estado = 'inactivo'",
      'DELETE FROM issuers',
      'DELETE FROM api_keys',
      'DELETE FROM accounts',
    ];
    let before = generation();
    for (const step of steps) {
      db.sqlite.exec(step);
      expect(generation(), step).toBe(before + 1);
      before = generation();
    }
    db.sqlite.exec("INSERT INTO settings VALUES ('x','y')");
    expect(generation()).toBe(before);
    await db.close();
  });
});

describe('20261125T2000Z-submission-jobs-lote-partial', () => {
  it('on a database with queued and batched jobs: the index keeps only jobs in a submission, and reads by idLote still use it', async () => {
    const db = await migratedTo('20261125T1616Z-read-cache-generation');
    db.sqlite.exec(SEED_ACCOUNT + invoiceRow('f1', '1') + ';' + invoiceRow('f2', '2') + ';' + registroRow('r1', 'f1', '1') + ';' + registroRow('r2', 'f2', '2'));
    db.sqlite.exec(`
      INSERT INTO submission_jobs VALUES ('j1','r1','test','test|aeat|B12345674','en_lote',0,'t',NULL,'t','lote1');
      INSERT INTO submission_jobs VALUES ('j2','r2','test','test|aeat|B12345674','pendiente',0,'t',NULL,'t',NULL);`);
    const entries = () => (db.sqlite.prepare('SELECT count(*) AS n FROM submission_jobs INDEXED BY submission_jobs_lote WHERE idLote IS NOT NULL').get() as { n: number }).n;
    expect(entries()).toBe(1);
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('20261125T2000Z-submission-jobs-lote-partial')).error).toBeUndefined();
    const { sql } = db.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'submission_jobs_lote'").get() as { sql: string };
    expect(sql).toMatch(/WHERE idLote IS NOT NULL$/);
    // Every job is still there; the one in a submission is found through the index.
    expect(db.sqlite.prepare('SELECT id FROM submission_jobs ORDER BY id').all()).toEqual([{ id: 'j1' }, { id: 'j2' }]);
    expect(db.sqlite.prepare("SELECT id FROM submission_jobs WHERE idLote = 'lote1'").all()).toEqual([{ id: 'j1' }]);
    const plan = db.sqlite.prepare("EXPLAIN QUERY PLAN SELECT id FROM submission_jobs WHERE idLote = 'lote1'").all() as { detail: string }[];
    expect(plan.map((p) => p.detail).join('\n')).toContain('USING INDEX submission_jobs_lote');
    expect(db.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    await db.close();
  });
});

describe('20261126T0200Z-submission-requests', () => {
  it('on a database holding submissions: each keeps its exact request bytes, now in submission_requests, and its state row loses them', async () => {
    const db = await migratedTo('20261125T2300Z-device-routing-generation');
    // An answered submission and an open one (resent byte for byte after the migration), a 2 MB request among them.
    const big = `<soapenv:Envelope>${'<sum:RegistroFactura>é…</sum:RegistroFactura>'.repeat(45_000)}</soapenv:Envelope>`;
    const insert = db.sqlite.prepare(
      'INSERT INTO submission_batches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const queue = 'test|aeat|B12345674';
    insert.run('lote1', queue, 'test', 'aeat', 'B12345674', 1000, 0, big, 'respondido', 1, '<respuesta/>', 'CSV1', 'Correcto', 't1', 't1', 't2', null);
    insert.run('lote2', queue, 'test', 'aeat', 'B12345674', 3, 1, '<peticion>2</peticion>', 'pendiente_respuesta', 2, null, null, null, 't3', 't4', null, 'sin respuesta');
    const stateBefore = db.sqlite.prepare('SELECT * FROM submission_batches ORDER BY id').all() as Record<string, unknown>[];
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('20261126T0200Z-submission-requests')).error).toBeUndefined();

    expect(db.sqlite.prepare('SELECT idLote, peticion FROM submission_requests ORDER BY idLote').all()).toEqual([
      { idLote: 'lote1', peticion: big },
      { idLote: 'lote2', peticion: '<peticion>2</peticion>' },
    ]);
    expect(columnTypes(db, 'submission_batches')).not.toHaveProperty('peticion');
    expect(db.sqlite.prepare('SELECT * FROM submission_batches ORDER BY id').all()).toEqual(
      stateBefore.map(({ peticion: _moved, ...rest }) => rest),
    );
    // The open submission is still found through its index; a request belongs to an existing submission.
    const plan = db.sqlite.prepare("EXPLAIN QUERY PLAN SELECT * FROM submission_batches WHERE queueKey = ? AND estado = 'pendiente_respuesta'").all(queue) as { detail: string }[];
    expect(plan.map((p) => p.detail).join('\n')).toContain('submission_batches_queue');
    expect(() => db.sqlite.prepare('INSERT INTO submission_requests VALUES (?, ?)').run('nope', 'x')).toThrow(/FOREIGN KEY/);
    expect(() => db.sqlite.prepare('INSERT INTO submission_requests VALUES (?, ?)').run('lote2', 'x')).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(db.sqlite.prepare("SELECT sql FROM sqlite_master WHERE name = 'submission_requests'").get()).toEqual({ sql: expect.stringMatching(/\)\s*STRICT$/) });
    expect(db.sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.sqlite.pragma('foreign_key_check')).toEqual([]);
    await db.close();
  });
});
