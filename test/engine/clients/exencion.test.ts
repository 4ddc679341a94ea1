import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SqliteDatabase } from '../../../engine/src/db/database';
import { migrations } from '../../../engine/src/db/migrations';
import { anAutonomo, anEmpresa, crear, dniNumber, expectError, makeClientsEngine, usados } from './helpers';

// Spec, list rule 5: "The own company was exempt from the limit until 10 September 2026; for
// accounts older than that date, clientesUsados may stay one below the number of active issuers."

describe('The own company was exempt from the seat limit until 10 September 2026', () => {
  it('an account created before that date whose own company was registered then: clientesUsados is one below the active issuers', async () => {
    const t = await makeClientsEngine({ now: '2026-09-01T10:00:00.000Z' });
    try {
      t.setLimits(3);
      expect(await usados(t)).toEqual({ limitePlan: 3, clientesUsados: 0, clientesDisponibles: 3 });
      for (let i = 0; i < 3; i++) expect((await crear(t, anAutonomo({ nif: dniNumber(i), nombre: `P ${i}` }))).statusCode).toBe(201);
      expectError(await crear(t, anAutonomo({ nif: dniNumber(9), nombre: 'P 9' })), 409, 'CLIENT_LIMIT_REACHED');
      // Still so after the date: the exemption stays with the issuer registered while it applied.
      t.clock.set('2026-11-20T10:00:00.000Z');
      expect(await usados(t)).toEqual({ limitePlan: 3, clientesUsados: 3, clientesDisponibles: 0 });
      expect((await t.manage('PATCH', '/v1/clientes/B12345674/estado', { body: { estado: 'activo' } })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('the own company created through the API before the date, in an account older than it, takes no seat', async () => {
    const t = await makeClientsEngine({ now: '2026-09-01T10:00:00.000Z' });
    try {
      const other = t.otherAccount({ nif: 'B77777779', limite: 1 });
      t.clock.set('2026-09-09T21:59:59.000Z'); // 23:59:59 in Madrid
      expect((await crear(t, anEmpresa({ nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL' }), other.test)).statusCode).toBe(201);
      expect(await usados(t, other.test)).toEqual({ limitePlan: 1, clientesUsados: 0, clientesDisponibles: 1 });
      expect((await crear(t, anAutonomo(), other.test)).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  });

  it('from 10 September 2026 (Madrid) the own company takes a seat, even in an older account', async () => {
    const t = await makeClientsEngine({ now: '2026-09-01T10:00:00.000Z' });
    try {
      const other = t.otherAccount({ nif: 'B77777779', limite: 1 });
      t.clock.set('2026-09-09T22:00:00.000Z'); // 00:00 on 10 September in Madrid
      expect((await crear(t, anEmpresa({ nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL' }), other.test)).statusCode).toBe(201);
      expect(await usados(t, other.test)).toEqual({ limitePlan: 1, clientesUsados: 1, clientesDisponibles: 0 });
      expectError(await crear(t, anAutonomo(), other.test), 409, 'CLIENT_LIMIT_REACHED');
    } finally {
      await t.close();
    }
  });

  it('accounts created after the date never had it', async () => {
    const t = await makeClientsEngine({ now: '2026-11-20T10:00:00.000Z' });
    try {
      expect((await usados(t)).clientesUsados).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('20261122T1600Z-clients migrates existing issuers', () => {
  it('gives every issuer its details row, and the historical exemption only to own companies of older accounts', async () => {
    const db = SqliteDatabase.open(mkdtempSync(path.join(tmpdir(), 'mig-clients-')));
    const migrator = new Migrator({ db: db.kysely, provider: { getMigrations: async () => migrations } });
    const names = Object.keys(migrations).sort();
    const before = names[names.indexOf('20261122T1600Z-clients') - 1] ?? '';
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    db.sqlite.exec(`
      INSERT INTO accounts VALUES ('old','B12345674','OLD SL','basico','activa',1,5,5,'2026-08-01T00:00:00.000Z');
      INSERT INTO accounts VALUES ('new','B77777779','NEW SL','basico','activa',1,5,5,'2026-10-01T00:00:00.000Z');
      INSERT INTO issuers VALUES ('i1','old','test','B12345674','OLD SL','verifactu','activo','pendiente','unica','no_contratada','2026-08-01T00:00:00.000Z','2026-08-01T00:00:00.000Z');
      INSERT INTO issuers VALUES ('i2','old','test','12345678Z','X','verifactu','activo','pendiente','unica','no_contratada','2026-08-02T00:00:00.000Z','2026-08-02T00:00:00.000Z');
      INSERT INTO issuers VALUES ('i3','old','live','B12345674','OLD SL','verifactu','activo','pendiente','unica','no_contratada','2026-09-15T00:00:00.000Z','2026-09-15T00:00:00.000Z');
      INSERT INTO issuers VALUES ('i4','new','test','B77777779','NEW SL','verifactu','activo','pendiente','unica','no_contratada','2026-10-01T00:00:00.000Z','2026-10-01T00:00:00.000Z');
    `);
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const rows = db.sqlite.prepare('SELECT issuerId, exentoPlaza, portalHabilitado, eliminadoEn FROM issuer_details ORDER BY issuerId').all();
    expect(rows).toEqual([
      { issuerId: 'i1', exentoPlaza: 1, portalHabilitado: 0, eliminadoEn: null },
      { issuerId: 'i2', exentoPlaza: 0, portalHabilitado: 0, eliminadoEn: null },
      { issuerId: 'i3', exentoPlaza: 0, portalHabilitado: 0, eliminadoEn: null },
      { issuerId: 'i4', exentoPlaza: 0, portalHabilitado: 0, eliminadoEn: null },
    ]);
    // One signature in progress per issuer at most.
    db.sqlite.exec(`INSERT INTO representation_documents (id, issuerId, estado, pdf, sha256, generadoEn) VALUES ('d1','i1','en_curso',x'00','h','t')`);
    expect(() => db.sqlite.exec(`INSERT INTO representation_documents (id, issuerId, estado, pdf, sha256, generadoEn) VALUES ('d2','i1','en_curso',x'00','h','t')`)).toThrow(/UNIQUE/);
    expect(db.sqlite.prepare(`EXPLAIN QUERY PLAN SELECT * FROM census_verdicts WHERE nif = 'x' AND nombreClave = ''`).all()).toEqual([
      expect.objectContaining({ detail: expect.stringMatching(/USING (INDEX|PRIMARY KEY)/) }),
    ]);
    await db.close();
  });
});
