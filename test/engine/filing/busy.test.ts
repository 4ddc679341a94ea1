// Issuing and the filing thread are two SQLite writers on one file: they serialize on the write
// lock and wait for each other up to busy_timeout. Should another connection hold the lock
// longer, the request is refused with a 503 that stores nothing, never a 500, and a retry once the
// lock is free issues the invoice.
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeTestEngine } from '../../support/engine';
import { sqliteOf } from '../../support/sqlite-of';
import { aTicketDemo } from '../../fixtures/verifactu';

const factura = (nif: string, numero: string) => aTicketDemo(nif, 'BZ', numero);

describe('The write lock held by another connection past busy_timeout', () => {
  it('crear answers 503 STORAGE_BUSY with nothing stored; the retry once it is free issues the invoice', async () => {
    const t = await makeTestEngine();
    const db = t.engine.context.db;
    // A short wait, so the test does not sit out the engine's five seconds.
    sqliteOf(db).pragma('busy_timeout = 50');
    const other = new BetterSqlite3(db.file);
    try {
      other.prepare('BEGIN IMMEDIATE').run();
      const busy = await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') });
      expect(busy.statusCode).toBe(503);
      expect(busy.json()).toMatchObject({ code: 'STORAGE_BUSY' });
      expect(busy.headers['retry-after']).toBe('1');
      other.prepare('ROLLBACK').run();
      expect(sqliteOf(db).prepare('SELECT COUNT(*) AS n FROM invoices').get()).toEqual({ n: 0 });

      const retried = await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') });
      expect(retried.statusCode, retried.body).toBe(200);
      expect(retried.json().yaExistente).not.toBe(true);
      expect(sqliteOf(db).prepare('SELECT COUNT(*) AS n FROM invoices').get()).toEqual({ n: 1 });
    } finally {
      if (other.inTransaction) other.prepare('ROLLBACK').run();
      other.close();
      await t.close();
    }
  });
});
