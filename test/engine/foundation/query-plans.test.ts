import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Compilable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteDatabase, type SqliteDatabase as Database } from '../../../engine/src/db/database';

let db: Database;
beforeAll(async () => {
  db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'plans-')));
  await db.migrate();
});
afterAll(async () => db.close());

function plan(query: Compilable): string {
  const compiled = query.compile();
  const rows = db.sqlite.prepare(`EXPLAIN QUERY PLAN ${compiled.sql}`).all(...(compiled.parameters as never[])) as { detail: string }[];
  return rows.map((r) => r.detail).join('\n');
}

describe('Hot queries keep their indexes (reads at 1 M invoices stay as fast as at 10 k)', () => {
  it('invoice list of an issuer, newest first, keyset page', () => {
    const q = db.kysely
      .selectFrom('invoices')
      .selectAll()
      .where('entorno', '=', 'test')
      .where('nifEmisor', '=', 'B12345674')
      .where((eb) => eb.or([eb('creadoEn', '<', 'x'), eb.and([eb('creadoEn', '=', 'x'), eb('id', '<', 'y')])]))
      .orderBy('creadoEn', 'desc')
      .orderBy('id', 'desc')
      .limit(101);
    const p = plan(q);
    expect(p).toContain('USING INDEX invoices_list');
    expect(p).not.toContain('TEMP B-TREE');
  });
  it('record list of an issuer', () => {
    const p = plan(
      db.kysely.selectFrom('registros').selectAll().where('entorno', '=', 'test').where('nifEmisor', '=', 'B').orderBy('creadoEn', 'desc').orderBy('id', 'desc').limit(101),
    );
    expect(p).toContain('USING INDEX registros_list');
    expect(p).not.toContain('TEMP B-TREE');
  });
  it('identity lookup (replay check, search)', () => {
    const p = plan(
      db.kysely
        .selectFrom('invoices')
        .selectAll()
        .where('entorno', '=', 'test')
        .where('nifEmisor', '=', 'B')
        .where('serie', '=', 'A')
        .where('numero', '=', '1')
        .where('fechaExpedicion', '=', '01-01-2026'),
    );
    expect(p).toMatch(/USING INDEX sqlite_autoindex_invoices_\d/);
  });
  it('records of a submission and the waiting jobs of a queue', () => {
    expect(plan(db.kysely.selectFrom('registros').select('id').where('idLote', '=', 'l'))).toContain('registros_lote');
    expect(plan(db.kysely.selectFrom('submission_jobs').select('id').where('queueKey', '=', 'q').where('estado', '=', 'pendiente'))).toContain('submission_jobs_queue');
    // Partial (idLote IS NOT NULL): `idLote = ?` still qualifies, for reads, deletes and the join of a submission's records.
    expect(plan(db.kysely.selectFrom('submission_jobs').select('id').where('idLote', '=', 'l'))).toMatch(/USING (COVERING )?INDEX submission_jobs_lote/);
    expect(plan(db.kysely.deleteFrom('submission_jobs').where('idLote', '=', 'l'))).toMatch(/USING (COVERING )?INDEX submission_jobs_lote/);
    expect(
      plan(
        db.kysely
          .selectFrom('submission_jobs')
          .innerJoin('registros', 'registros.id', 'submission_jobs.registroId')
          .select('registros.id')
          .where('submission_jobs.idLote', '=', 'l'),
      ),
    ).toMatch(/USING (COVERING )?INDEX submission_jobs_lote/);
  });
});
