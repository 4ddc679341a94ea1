import { describe, expect, it } from 'vitest';
import {
  anAutonomo,
  anEmpresa,
  crear,
  dniNumber,
  expectError,
  json,
  usados,
  useEngineWithCensus,
  type CensusEmu,
  type ClientsEngine,
} from './helpers';
import { onPostgres } from '../../support/engine';
import { sqliteOf } from '../../support/sqlite-of';

interface Cliente {
  nif: string;
  nombre: string;
  estado: string;
  estadoRepresentacion: string;
  validacionCensal: { estado: string; nombreCenso: string | null; validadoEn?: string };
  clientePropio?: boolean;
  portalHabilitado: boolean;
  modoCadena?: string;
  faseAltaCapacidad?: string;
  [k: string]: unknown;
}

let census: CensusEmu;
let t: ClientsEngine;

useEngineWithCensus((engine, emu) => {
  t = engine;
  census = emu;
});

const cliente = (res: { json(): unknown }) => (res.json() as { cliente: Cliente }).cliente;

describe('POST /v1/clientes/crear answers 201 with { cliente } and every derived field', () => {
  it('an empresa with representante', async () => {
    const res = await crear(t, anEmpresa());
    expect(res.statusCode, res.body).toBe(201);
    const body = json<{ cliente: Cliente; entorno: string }>(res);
    expect(body.entorno).toBe('test');
    expect(body.cliente).toMatchObject({
      nif: 'B48123459',
      nombre: 'TALLERES BILBAO ZAHARRA SL',
      email: 'admin@talleres.example',
      tipoUsuario: 'empresa',
      hacienda: 'verifactu',
      estado: 'activo',
      estadoRepresentacion: 'pendiente',
      portalHabilitado: false,
      modoCadena: 'unica',
      faseAltaCapacidad: 'no_contratada',
      creadoEn: '2026-11-20T10:00:00.000Z',
      ultimaModificacion: '2026-11-20T10:00:00.000Z',
      representante: { nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', nif: '23456789D' },
    });
    // clientePropio is omitted for a third party.
    expect('clientePropio' in body.cliente).toBe(false);
  });

  it('the NIF is stored normalized (spaces, hyphens, lower case, ES prefix)', async () => {
    const res = await crear(t, anAutonomo({ nif: 'es 34567890-v' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(cliente(res).nif).toBe('34567890V');
    expect((await t.manage('GET', '/v1/clientes/34567890v')).statusCode).toBe(200);
  });

  it('creates in the environment of the key', async () => {
    const res = await crear(t, anAutonomo(), t.keys.live);
    expect(json(res).entorno).toBe('live');
    expect((await t.manage('GET', '/v1/clientes/34567890V', { key: t.keys.test })).statusCode).toBe(404);
    expect((await t.manage('GET', '/v1/clientes/34567890V', { key: t.keys.live })).statusCode).toBe(200);
  });

  it('without a key: 403 Forbidden with no code', async () => {
    const res = await t.manage('POST', '/v1/clientes/crear', { key: null, body: anEmpresa() });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ message: 'Forbidden' });
  });
});

describe('Creation field rules → 400 VALIDATION_ERROR naming the field, nothing stored', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['invalid NIF format', anEmpresa({ nif: 'B48123458' }), 'nif'],
    ['NIF of the wrong length', anEmpresa({ nif: 'B4812345' }), 'nif'],
    ['missing nif', anEmpresa({ nif: undefined }), 'nif'],
    ['missing nombre', anEmpresa({ nombre: undefined }), 'nombre'],
    ['nombre over 120', anEmpresa({ nombre: 'x'.repeat(121) }), 'nombre'],
    ['encoded entity in nombre', anEmpresa({ nombre: 'A &amp; B SL' }), 'nombre'],
    ['missing tipoUsuario', anEmpresa({ tipoUsuario: undefined }), 'tipoUsuario'],
    ['unknown tipoUsuario', anEmpresa({ tipoUsuario: 'sociedad' }), 'tipoUsuario'],
    ['missing hacienda', anEmpresa({ hacienda: undefined }), 'hacienda'],
    ['unknown hacienda', anEmpresa({ hacienda: 'tbai-navarra' }), 'hacienda'],
    ['bad email', anEmpresa({ email: 'no-es-un-correo' }), 'email'],
    ['incomplete direccion', anEmpresa({ direccion: { calle: 'Mayor', numero: '1' } }), 'direccion.codigoPostal'],
    ['representante with an invalid NIF', anEmpresa({ representante: { nombre: 'X', nif: '23456789A' } }), 'representante.nif'],
    ['clientePropio cannot be set', anEmpresa({ clientePropio: true }), 'clientePropio'],
    ['estado cannot be set', anEmpresa({ estado: 'inactivo' }), 'estado'],
  ];
  for (const [name, body, campo] of cases) {
    it(name, async () => {
      expectError(await crear(t, body), 400, 'VALIDATION_ERROR', campo);
      expect((await usados(t)).clientesUsados).toBe(1);
    });
  }
});

describe('representante: required for empresa; not accepted for autonomo', () => {
  it('empresa without representante → 400', async () => {
    expectError(await crear(t, anEmpresa({ representante: undefined })), 400, 'VALIDATION_ERROR', 'representante');
  });
  it('autonomo with representante → 400', async () => {
    expectError(
      await crear(t, anAutonomo({ representante: { nombre: 'X', nif: '23456789D' } })),
      400,
      'VALIDATION_ERROR',
      'representante',
    );
  });
  it('autonomo without it → 201', async () => {
    expect((await crear(t, anAutonomo())).statusCode).toBe(201);
  });
});

describe('epigrafeIAE: required for autonomo in tbai-bizkaia, validated against the IAE catalogue; not applicable otherwise', () => {
  const bizkaia = (extra: Record<string, unknown> = {}) => anAutonomo({ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', hacienda: 'tbai-bizkaia', ...extra });
  it('missing → 400', async () => {
    expectError(await crear(t, bizkaia()), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
  });
  it('out of the LROE form (dots, letters, more than 7 digits) → 400', async () => {
    for (const e of ['659.4', '16594A', '12345678']) expectError(await crear(t, bizkaia({ epigrafeIAE: e })), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
  });
  it('outside the catalogue → 400 (751 of section 1 has epígrafes, so 175100 is not a leaf)', async () => {
    expectError(await crear(t, bizkaia({ epigrafeIAE: '175100' })), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
    expectError(await crear(t, bizkaia({ epigrafeIAE: '999999' })), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
  });
  it('in the catalogue → 201 and stored', async () => {
    const res = await crear(t, bizkaia({ epigrafeIAE: '165940' }));
    expect(res.statusCode, res.body).toBe(201);
    expect(cliente(res).epigrafeIAE).toBe('165940');
  });
  it('not applicable to an empresa in Bizkaia, nor to an autonomo elsewhere → 400', async () => {
    expectError(await crear(t, anEmpresa({ hacienda: 'tbai-bizkaia', epigrafeIAE: '165940' })), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
    expectError(await crear(t, anAutonomo({ hacienda: 'tbai-gipuzkoa', epigrafeIAE: '165940' })), 400, 'VALIDATION_ERROR', 'epigrafeIAE');
  });
  it('an empresa in Bizkaia needs none', async () => {
    expect((await crear(t, anEmpresa({ hacienda: 'tbai-bizkaia' }))).statusCode).toBe(201);
  });
});

describe('Own company (the ID equals the account’s own ID)', () => {
  it('already under the account: 200 with the existing record (idempotent repeat), clientePropio true', async () => {
    const res = await crear(t, anEmpresa({ nif: 'B12345674', nombre: 'OTRO NOMBRE' }));
    expect(res.statusCode, res.body).toBe(200);
    const c = cliente(res);
    expect(c).toMatchObject({ nif: 'B12345674', nombre: 'COMERCIAL DEMO SL', clientePropio: true });
    expect((await usados(t)).clientesUsados).toBe(1);
    // Repeating again changes nothing either.
    expect((await crear(t, anEmpresa({ nif: 'B12345674' }))).statusCode).toBe(200);
  });

  it('registered in another account: 409 SELF_CLIENT_CONFLICT, and the other record is never returned', async () => {
    const other = t.otherAccount({ nif: 'B77777779' });
    expect((await crear(t, anEmpresa({ nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL' }))).statusCode).toBe(201);
    const body = expectError(await crear(t, anEmpresa({ nif: 'B77777779' }), other.test), 409, 'SELF_CLIENT_CONFLICT');
    expect(body).not.toHaveProperty('cliente');
    expect(JSON.stringify(body)).not.toContain('GESTORIA');
  });

  it('the own company occupies a seat and, as an empresa, needs representante', async () => {
    const other = t.otherAccount({ nif: 'B77777779', limite: 1 });
    expectError(await crear(t, anEmpresa({ nif: 'B77777779', representante: undefined }), other.test), 400, 'VALIDATION_ERROR', 'representante');
    expect((await crear(t, anEmpresa({ nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL' }), other.test)).statusCode).toBe(201);
    expect(await usados(t, other.test)).toEqual({ limitePlan: 1, clientesUsados: 1, clientesDisponibles: 0 });
    const created = json<{ cliente: Cliente }>(await t.manage('GET', '/v1/clientes/B77777779', { key: other.test })).cliente;
    expect(created.clientePropio).toBe(true);
    expectError(await crear(t, anAutonomo(), other.test), 409, 'CLIENT_LIMIT_REACHED');
  });
});

describe('A third party’s ID that already exists: 400 VALIDATION_ERROR, generic on purpose', () => {
  it('under the same account and under another account give the same body', async () => {
    expect((await crear(t, anEmpresa())).statusCode).toBe(201);
    const mine = expectError(await crear(t, anEmpresa()), 400, 'VALIDATION_ERROR', 'nif');
    const other = t.otherAccount();
    const theirs = expectError(await crear(t, anEmpresa(), other.test), 400, 'VALIDATION_ERROR', 'nif');
    expect(theirs).toEqual(mine);
  });

  it('uniqueness is platform-wide: another account cannot take it in the other environment either', async () => {
    expect((await crear(t, anEmpresa(), t.keys.test)).statusCode).toBe(201);
    const other = t.otherAccount();
    expectError(await crear(t, anEmpresa(), other.live), 400, 'VALIDATION_ERROR', 'nif');
    // The same account may have it in both environments.
    expect((await crear(t, anEmpresa(), t.keys.live)).statusCode).toBe(201);
  });
});

describe('The plan’s client limit → 409 CLIENT_LIMIT_REACHED', () => {
  it('creation beyond the limit is refused; nothing stored', async () => {
    t.setLimits(2);
    expect((await crear(t, anAutonomo())).statusCode).toBe(201);
    expectError(await crear(t, anEmpresa()), 409, 'CLIENT_LIMIT_REACHED');
    expect((await t.manage('GET', '/v1/clientes/B48123459')).statusCode).toBe(404);
  });

  it('no configured limit: no refusal', async () => {
    t.setLimits(null);
    for (let i = 0; i < 12; i++) expect((await crear(t, anAutonomo({ nif: dniNumber(i), nombre: `PERSONA ${i}` }))).statusCode).toBe(201);
  });

  it('the limit is per environment', async () => {
    t.setLimits(1, 2);
    expectError(await crear(t, anAutonomo(), t.keys.test), 409, 'CLIENT_LIMIT_REACHED');
    expect((await crear(t, anAutonomo(), t.keys.live)).statusCode).toBe(201);
  });
});

describe('Format, uniqueness and the seat limit are checked atomically', () => {
  it('20 concurrent creations with 5 free seats: exactly 5 succeed and clientesUsados is the limit', async () => {
    t.setLimits(6);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => crear(t, anAutonomo({ nif: dniNumber(i), nombre: `PERSONA ${i}` }))),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(5);
    expect(results.filter((r) => r.statusCode === 409).every((r) => json(r).code === 'CLIENT_LIMIT_REACHED')).toBe(true);
    expect(await usados(t)).toEqual({ limitePlan: 6, clientesUsados: 6, clientesDisponibles: 0 });
  });

  it('the same NIF created concurrently by two accounts: exactly one wins', async () => {
    const other = t.otherAccount();
    const [a, b, c] = await Promise.all([crear(t, anEmpresa()), crear(t, anEmpresa(), other.test), crear(t, anEmpresa(), other.live)]);
    expect([a, b, c].map((r) => r.statusCode).sort()).toEqual([201, 400, 400]);
  });

  it('the own company created concurrently twice: one 201, one 200, one seat', async () => {
    const other = t.otherAccount({ nif: 'B77777779' });
    const [a, b] = await Promise.all([
      crear(t, anEmpresa({ nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL' }), other.test),
      crear(t, anEmpresa({ nif: 'B77777779', nombre: 'GESTORIA EJEMPLO SL' }), other.test),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 201]);
    expect((await usados(t, other.test)).clientesUsados).toBe(1);
  });
});

describe('Rule 4 of the NIF check: creation runs the census check, stores it in validacionCensal, never blocks', () => {
  it('identified company: the verdict with the official name', async () => {
    const c = cliente(await crear(t, anEmpresa({ nombre: 'TALLERES BILBAO' })));
    expect(c.validacionCensal).toEqual({
      estado: 'identificado',
      nombreCenso: 'TALLERES BILBAO ZAHARRA SL',
      validadoEn: '2026-11-20T10:00:00.000Z',
      resultadoAeat: 'IDENTIFICADO',
    });
  });

  it('a person not identified with that name is still created', async () => {
    const res = await crear(t, anAutonomo({ nombre: 'OTRA PERSONA' }));
    expect(res.statusCode).toBe(201);
    expect(cliente(res).validacionCensal).toMatchObject({ estado: 'no_identificado', nombreCenso: null });
  });

  it('a revoked NIF is still created, with its verdict', async () => {
    const res = await crear(t, anEmpresa({ nif: 'A44444446', nombre: 'INVERSIONES REVOCADAS SA' }));
    expect(res.statusCode).toBe(201);
    expect(cliente(res).validacionCensal.estado).toBe('identificado_revocado');
  });

  it('census down: created anyway with no_procesado; a later check fills it in from the cache', async () => {
    census.service.faults.set({ mode: 'down' });
    const res = await crear(t, anEmpresa());
    expect(res.statusCode).toBe(201);
    expect(cliente(res).validacionCensal).toMatchObject({ estado: 'no_procesado', nombreCenso: null });
    census.service.faults.reset();
    t.clock.advance(60_000);
    await t.manage('POST', '/v1/nif/validar', { body: { nifs: [{ nif: 'B48123459', nombre: 'TALLERES BILBAO ZAHARRA SL' }] } });
    const detail = json<{ cliente: Cliente }>(await t.manage('GET', '/v1/clientes/B48123459')).cliente;
    expect(detail.validacionCensal).toMatchObject({ estado: 'identificado', validadoEn: '2026-11-20T10:01:00.000Z' });
    const list = json<{ clientes: { nif: string; estadoCenso: string }[] }>(await t.manage('GET', '/v1/clientes'));
    expect(list.clientes.find((c) => c.nif === 'B48123459')?.estadoCenso).toBe('identificado');
  });

  it('census slow beyond the time-out: created anyway', async () => {
    census.service.faults.set({ mode: 'slow', delayMs: 1000 });
    const res = await crear(t, anEmpresa());
    expect(res.statusCode).toBe(201);
    expect(cliente(res).validacionCensal.estado).toBe('no_procesado');
  });
});

describe('modoCadena and faseAltaCapacidad belong to the account: a new environment copy inherits them', () => {
  it('the LIVE copy shows the phase the account set for that NIF', async () => {
    await crear(t, anEmpresa(), t.keys.test);
    const db = t.engine.context.db;
    db.statement(
      `INSERT INTO issuer_phases (accountId, nif, faseAltaCapacidad, modoCadena, observandoDesde, activacionSolicitadaEn, ultimaModificacion)
       VALUES ((SELECT id FROM accounts LIMIT 1),'B48123459','activa','por_dispositivo',NULL,NULL,'t')`,
    ).run();
    const c = cliente(await crear(t, anEmpresa(), t.keys.live));
    expect(c).toMatchObject({ modoCadena: 'por_dispositivo', faseAltaCapacidad: 'activa' });
  });

  // Writing past a CHECK takes SQLite's ignore_check_constraints: PostgreSQL has no such switch.
  it.skipIf(onPostgres())('omitted when the stored value cannot be read', async () => {
    await crear(t, anEmpresa());
    const sqlite = sqliteOf(t.engine.context.db);
    // A value the schema refuses, written past its CHECK: what a damaged row would read as.
    sqlite.pragma('ignore_check_constraints = ON');
    sqlite.prepare(`INSERT INTO issuer_phases VALUES ((SELECT id FROM accounts LIMIT 1),'B48123459','no_contratada','???',NULL,NULL,'t')`).run();
    sqlite.pragma('ignore_check_constraints = OFF');
    const c = json<{ cliente: Cliente }>(await t.manage('GET', '/v1/clientes/B48123459')).cliente;
    expect(c).not.toHaveProperty('modoCadena');
    expect(c.faseAltaCapacidad).toBe('no_contratada');
  });
});
