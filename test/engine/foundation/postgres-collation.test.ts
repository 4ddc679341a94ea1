// Text sorts byte by byte on PostgreSQL as on SQLite, whatever locale the database was created with:
// every TEXT column of the migrations is COLLATE "C" (db/postgres-ddl.ts). Without it a database
// created under a language's collation (a server's default often is) orders 'a' before 'B', and
// lists, cursors and MIN/MAX would differ between the two databases.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { PG_SERVER_URL } from '../../support/postgres-cluster';

let admin: PostgresDatabase;
let db: PostgresDatabase;
const name = `collation_${process.pid}`;

beforeAll(async () => {
  const server = process.env[PG_SERVER_URL];
  if (!server) throw new Error('no PostgreSQL cluster for this run (test/support/postgres-cluster.ts)');
  admin = new PostgresDatabase(server);
  // A database whose default collation is Spanish (ICU), as `createdb` on an es_ES server makes one.
  admin.statement(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE 'C.UTF-8' LOCALE_PROVIDER icu ICU_LOCALE 'es-ES'`).run();
  db = new PostgresDatabase(server.replace(/\/[^/]*$/, `/${name}`));
  await db.migrate();
});
afterAll(async () => {
  await db?.close();
  admin?.statement(`DROP DATABASE IF EXISTS ${name}`).run();
  await admin?.close();
});

it('the database sorts in Spanish by default, and the engine’s tables still sort byte by byte', () => {
  const keys = ['a', 'B', '_z', 'ñ', 'Z'];
  // The control: a column without a collation of its own takes the database's.
  db.statement('CREATE TABLE control_collation (v TEXT NOT NULL)').run();
  for (const k of keys) db.statement('INSERT INTO control_collation (v) VALUES (?)').run(k);
  const spanish = db.statement<{ v: string }>('SELECT v FROM control_collation ORDER BY v').all().map((r) => r.v);
  expect(spanish).toEqual(['_z', 'a', 'B', 'ñ', 'Z']);

  for (const k of keys) db.statement('INSERT INTO settings (key, value) VALUES (?, ?)').run(`collation-${k}`, k);
  const engine = db
    .statement<{ value: string }>("SELECT value FROM settings WHERE key LIKE 'collation-%' ORDER BY value")
    .all()
    .map((r) => r.value);
  expect(engine).toEqual([...keys].sort()); // JavaScript's order is code-unit order, as SQLite's BINARY
  expect(engine).toEqual(['B', 'Z', '_z', 'a', 'ñ']);
  expect(db.statement<{ m: string }>("SELECT MIN(value) AS m FROM settings WHERE key LIKE 'collation-%'").all()[0]?.m).toBe('B');
});

it('every text column of the migrated schema is COLLATE "C"', () => {
  const columns = db
    .statement<{ table_name: string; column_name: string; collation_name: string | null }>(
      "SELECT table_name, column_name, collation_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text' AND table_name <> 'control_collation'",
    )
    .all();
  expect(columns.length).toBeGreaterThan(50);
  expect(columns.filter((c) => c.collation_name !== 'C')).toEqual([]);
});
