// The verifier's PostgreSQL read (instantanea.postgres.ts): one REPEATABLE READ READ ONLY snapshot
// on its own connection, rows fetched through a cursor a batch at a time — a commit by another
// connection between two batches is not seen, nothing can be written, and every row comes once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresDatabase, type PostgresError } from '../../../engine/src/db/postgres';
import { onPostgres } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';

describe.skipIf(!onPostgres())('PostgreSQL: a read-only snapshot streamed through a cursor', () => {
  let reader: PostgresDatabase;
  let writer: PostgresDatabase;
  beforeEach(() => {
    const url = freshPostgresUrl();
    reader = new PostgresDatabase(url);
    writer = new PostgresDatabase(url);
    for (let i = 1; i <= 5; i++) writer.statement('INSERT INTO settings (key, value) VALUES (?, ?)').run(`k${i}`, `v${i}`);
  });
  afterEach(async () => {
    await reader.close();
    await writer.close();
  });

  const settings = (db: PostgresDatabase) => db.kysely.selectFrom('settings').select(['key', 'value']).where('key', 'like', 'k%').orderBy('key');

  it('every row once, in order, across batches; a commit made between two batches is not in the snapshot', () => {
    const keys = reader.readOnlySnapshot(() => {
      const seen: string[] = [];
      for (const row of reader.cursor(settings(reader), 2)) {
        seen.push(row.key);
        if (seen.length === 1) {
          writer.statement('INSERT INTO settings (key, value) VALUES (?, ?)').run('k0', 'nuevo');
          writer.statement("UPDATE settings SET value = 'cambiado' WHERE key = 'k5'").run();
        }
      }
      // A second query in the same snapshot does not see them either.
      expect(reader.all(settings(reader)).find((r) => r.key === 'k5')?.value).toBe('v5');
      return seen;
    });
    expect(keys).toEqual(['k1', 'k2', 'k3', 'k4', 'k5']);
    // After the snapshot, the connection reads the latest commit.
    expect(reader.all(settings(reader)).map((r) => r.key)).toEqual(['k0', 'k1', 'k2', 'k3', 'k4', 'k5']);
  });

  it('nothing can be written in it; the connection is usable afterwards', () => {
    expect(() => reader.readOnlySnapshot(() => reader.statement("UPDATE settings SET value = 'x' WHERE key = 'k1'").run())).toThrow(
      expect.objectContaining({ code: '25006' }) as PostgresError,
    );
    expect(reader.inTransaction).toBe(false);
    expect(reader.statement<{ value: string }>("SELECT value FROM settings WHERE key = 'k1'").get()?.value).toBe('v1');
  });

  it('a cursor lives only inside a transaction', () => {
    expect(() => [...reader.cursor(settings(reader))]).toThrow('a cursor lives in a transaction');
  });
});
