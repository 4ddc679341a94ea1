// The chain verifier for support staff (issue 15): every link recomputed from the stored XML,
// each problem reported with its record; the panel route and `npm run admin -- verify-chains`.
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificacionCadenasSchema, type VerificacionCadenas } from '../../../src-shared/api/verificacion';
import { huellaAlta } from '../../../engine/src/regimes/verifactu/record/huella';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { verificarCadenasEn } from '../../../engine/src/verification/verificar';
import { DeviceStore } from '../../../engine/src/devices/store';
import { aTicketTbai } from '../../fixtures/ticketbai';
import { makeTestEngine, onPostgres, type TestEngine } from '../../support/engine';
import { freshPostgresUrl } from '../../support/postgres';
import { postgresBinary } from '../../support/postgres-cluster';
import { sqliteOf } from '../../support/sqlite-of';
import { aTicketDemo } from '../../fixtures/verifactu';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const NOW = new Date('2026-11-20T10:00:00.000Z');
const VF = 'B12345674';
const TBAI = 'A58818501';

function facturaVf(numero: string, idMaquina?: string) {
  return { ...aTicketDemo(VF, 'V', numero), ...(idMaquina ? { idMaquina } : {}) };
}
const ticket = (numero: string, idMaquina: string) => ({
  ...aTicketTbai('gipuzkoa', { nif: TBAI, nombre: 'EMISOR GIPUZKOA SL' }, `T${idMaquina.slice(-1)}`, numero),
  idMaquina,
});

let t: TestEngine;
let original: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await makeTestEngine({ now: NOW.toISOString() });
  const ctx = t.engine.context;
  const accountId = ctx.accounts.listAccounts()[0]!.id;
  ctx.issuers.create({ accountId, entorno: 'test', nif: TBAI, nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
  // Phase activa: one chain per device, in both regimes (issue 13).
  const devices = new DeviceStore(ctx.db);
  for (const [nif, maquinas] of [[VF, ['caja-1', 'caja-2']], [TBAI, ['caja-A', 'caja-B']]] as const) {
    devices.setPhase(accountId, nif, 'activa', NOW.toISOString());
    for (const idMaquina of maquinas) {
      const res = await t.manage('POST', `/v1/clientes/${nif}/dispositivos`, { body: { idMaquina } });
      expect([200, 201], res.body).toContain(res.statusCode);
    }
  }
  for (let n = 1; n <= 6; n++) {
    const res = await t.billing('POST', '/v1/verifactu/crear', { body: facturaVf(String(n), 'caja-1') });
    expect(res.statusCode, res.body).toBe(200);
  }
  const anulada = await t.billing('POST', '/v1/verifactu/anular', {
    body: { version: '1.0', facturaAnulada: { nifEmisor: VF, serie: 'V', numero: '6', fechaExpedicion: '20-11-2026' }, idMaquina: 'caja-1' },
  });
  expect(anulada.statusCode, anulada.body).toBe(200);
  const otra = await t.billing('POST', '/v1/verifactu/crear', { body: { ...facturaVf('1', 'caja-2'), cabecera: { ...facturaVf('1').cabecera, serie: 'W' } } });
  expect(otra.statusCode, otra.body).toBe(200);
  for (const [i, maquina] of ['caja-A', 'caja-B', 'caja-A', 'caja-A'].entries()) {
    const res = await t.billing('POST', '/v1/ticketbai/crear', { body: ticket(String(i + 1), maquina) });
    expect(res.statusCode, res.body).toBe(200);
  }
  const anuTbai = await t.billing('POST', '/v1/ticketbai/anular', {
    body: { nifEmisor: TBAI, serie: 'TB', numero: '2', fechaExpedicion: '20-11-2026', provincia: 'gipuzkoa', idMaquina: 'caja-B' },
  });
  expect(anuTbai.statusCode, anuTbai.body).toBe(200);
  for (const r of ctx.db.statement<{ id: string; chainKey: string; chainSeq: number }>('SELECT id, chainKey, chainSeq FROM registros').all()) {
    ids[`${r.chainKey}#${r.chainSeq}`] = r.id;
  }
  original = ctx.db.file;
});
afterAll(async () => t.close());

const VF_CHAIN = `test|verifactu|${VF}|dev:caja-1`;
const TBAI_A = `test|ticketbai|${TBAI}|dev:caja-A`;

/** A copy of the database to tamper with (foreign keys off), through SQL in SQLite's spelling on both databases. */
interface Copia {
  run(sql: string, ...params: string[]): void;
  get<R>(sql: string, ...params: string[]): R;
  close(): void;
}
/** The tables the verifier reads. */
const VERIFIED_TABLES = ['invoices', 'registros', 'registro_documentos', 'chains', 'submission_jobs'];

/** A copy of the database to tamper with; the engine keeps running on the original. */
/** `file`: the copy's file (SQLite) or URL (PostgreSQL). */
function copia(): { file: string; db: Copia } {
  if (onPostgres()) {
    // PostgreSQL copies a database as a template only with nobody connected to it: the engine is,
    // so the verified tables' rows are dumped into a fresh database instead.
    const file = freshPostgresUrl();
    const dump = execFileSync(postgresBinary('pg_dump'), ['--data-only', '--disable-triggers', ...VERIFIED_TABLES.flatMap((table) => ['-t', table]), original]);
    execFileSync(postgresBinary('psql'), ['-q', '-v', 'ON_ERROR_STOP=1', file], { input: dump, stdio: ['pipe', 'ignore', 'pipe'] });
    const db = new PostgresDatabase(file);
    db.statement('SET session_replication_role = replica').run();
    return {
      file,
      db: { run: (sql, ...p) => void db.statement(sql).run(...p), get: <R>(sql: string, ...p: string[]) => db.statement<R>(sql).get(...p) as R, close: () => void db.close() },
    };
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'verify-'));
  const file = path.join(dir, 'engine.sqlite');
  sqliteOf(t.engine.context.db).pragma('wal_checkpoint(TRUNCATE)');
  copyFileSync(original, file);
  const db = new BetterSqlite3(file);
  db.pragma('foreign_keys = OFF');
  return {
    file,
    db: { run: (sql, ...p) => void db.prepare(sql).run(...p), get: <R>(sql: string, ...p: string[]) => db.prepare(sql).get(...p) as R, close: () => db.close() },
  };
}
const xmlOf = (db: Copia, id: string) => db.get<{ xml: string }>('SELECT xml FROM registro_documentos WHERE registroId = ?', id).xml;
const setXml = (db: Copia, id: string, xml: string) => db.run('UPDATE registro_documentos SET xml = ? WHERE registroId = ?', xml, id);
function verificarCadenas(file: string, filtro: Parameters<typeof verificarCadenasEn>[1], now: Date): VerificacionCadenas {
  return verificarCadenasEn({ dialect: t.engine.context.db.dialect, file }, filtro, now);
}
function verify(file: string): VerificacionCadenas {
  return verificacionCadenasSchema.parse(verificarCadenas(file, {}, NOW));
}

describe('A clean database verifies: every chain, per issuer, regime and device', () => {
  it('correcto, one entry per chain with its records, no problems', () => {
    const v = verify(original);
    expect(v.problemas).toEqual([]);
    expect(v.correcto).toBe(true);
    expect(v.verificadoEn).toBe(NOW.toISOString());
    const byKey = Object.fromEntries(v.cadenas.map((c) => [c.clave, c]));
    expect(byKey[VF_CHAIN]).toEqual({ clave: VF_CHAIN, entorno: 'test', nif: VF, sistemaFiscal: 'verifactu', idMaquina: 'caja-1', registros: 7, correcta: true });
    expect(byKey[`test|verifactu|${VF}|dev:caja-2`]).toMatchObject({ idMaquina: 'caja-2', registros: 1, correcta: true });
    expect(byKey[TBAI_A]).toMatchObject({ sistemaFiscal: 'ticketbai', idMaquina: 'caja-A', registros: 3, correcta: true });
    expect(byKey[`test|ticketbai|${TBAI}|dev:caja-B`]).toMatchObject({ idMaquina: 'caja-B', registros: 1 });
    expect(v.cadenas.filter((c) => c.clave.includes('anulaciones')).map((c) => [c.registros, c.correcta])).toEqual([[1, true]]);
  });
  it('filters by issuer and environment', () => {
    expect(verificarCadenas(original, { nif: TBAI }, NOW).cadenas.every((c) => c.nif === TBAI)).toBe(true);
    expect(verificarCadenas(original, { entorno: 'live' }, NOW).cadenas).toEqual([]);
  });
  it('the panel route answers the same, behind the panel token', async () => {
    const panel = t.engine.apps.panel;
    const denied = await panel.inject({ method: 'POST', url: '/panel/v1/sync/verificar-cadenas' });
    expect(denied.statusCode).toBe(401);
    const res = await panel.inject({ method: 'POST', url: '/panel/v1/sync/verificar-cadenas', headers: { authorization: 'Bearer panel-test-token' } });
    expect(res.statusCode, res.body).toBe(200);
    const v = verificacionCadenasSchema.parse(res.json());
    expect(v.correcto).toBe(true);
    expect(v.cadenas.length).toBe(verify(original).cadenas.length);
    const bad = await panel.inject({ method: 'POST', url: '/panel/v1/sync/verificar-cadenas?entorno=prod', headers: { authorization: 'Bearer panel-test-token' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ campo: 'entorno' });
  });
});

describe('VeriFactu: a tampered field breaks the record’s huella (rotura, expected vs found)', () => {
  it('ImporteTotal changed in the stored XML → rotura on that record', () => {
    const { file, db } = copia();
    const id = ids[`${VF_CHAIN}#3`]!;
    const xml = xmlOf(db, id);
    const stored = /<sum1:Huella>([0-9A-F]{64})<\/sum1:Huella><\/sum1:RegistroAlta>/.exec(xml)?.[1];
    setXml(db, id, xml.replace('<sum1:ImporteTotal>12.10</sum1:ImporteTotal>', '<sum1:ImporteTotal>1.10</sum1:ImporteTotal>'));
    db.close();
    const v = verify(file);
    expect(v.correcto).toBe(false);
    expect(v.problemas).toEqual([
      { tipo: 'rotura', clave: VF_CHAIN, idRegistro: id, serie: 'V', numero: '3', esperado: expect.stringMatching(/^[0-9A-F]{64}$/), encontrado: stored },
    ]);
    expect(v.cadenas.find((c) => c.clave === VF_CHAIN)?.correcta).toBe(false);
  });
});

describe('A deleted record leaves its successor’s link dangling (enlace_colgante)', () => {
  it('record 2 of the VeriFactu chain deleted → record 3 reported, with the huella it names', () => {
    const { file, db } = copia();
    const gone = ids[`${VF_CHAIN}#2`]!;
    const huella2 = /<sum1:Huella>([0-9A-F]{64})<\/sum1:Huella><\/sum1:RegistroAlta>/.exec(xmlOf(db, gone))?.[1];
    db.run('DELETE FROM submission_jobs WHERE registroId = ?', gone);
    db.run('DELETE FROM registro_documentos WHERE registroId = ?', gone);
    db.run('DELETE FROM registros WHERE id = ?', gone);
    db.close();
    const v = verify(file);
    expect(v.problemas).toEqual([
      { tipo: 'enlace_colgante', clave: VF_CHAIN, idRegistro: ids[`${VF_CHAIN}#3`], serie: 'V', numero: '3', encontrado: huella2 },
    ]);
  });
  it('a TicketBAI invoice deleted → the next invoice of its device is reported', () => {
    const { file, db } = copia();
    const gone = ids[`${TBAI_A}#1`]!;
    db.run('DELETE FROM submission_jobs WHERE registroId = ?', gone);
    db.run('DELETE FROM registro_documentos WHERE registroId = ?', gone);
    db.run('DELETE FROM registros WHERE id = ?', gone);
    db.close();
    const v = verify(file);
    expect(v.problemas).toEqual([expect.objectContaining({ tipo: 'enlace_colgante', clave: TBAI_A, idRegistro: ids[`${TBAI_A}#2`], numero: '3' })]);
  });
});

describe('Two records claiming one predecessor: a fork (bifurcacion)', () => {
  it('record 4 rewritten, consistently re-hashed, to link to record 2 like record 3 → bifurcacion on record 4', () => {
    const { file, db } = copia();
    const r2 = xmlOf(db, ids[`${VF_CHAIN}#2`]!);
    const h2 = /<sum1:Huella>([0-9A-F]{64})<\/sum1:Huella><\/sum1:RegistroAlta>/.exec(r2)![1]!;
    const id4 = ids[`${VF_CHAIN}#4`]!;
    const x4 = xmlOf(db, id4);
    const prev = /<sum1:RegistroAnterior>(.*?)<\/sum1:RegistroAnterior>/.exec(x4)![1]!;
    const forked = prev.replace(/<sum1:NumSerieFactura>[^<]*</, '<sum1:NumSerieFactura>V2<').replace(/<sum1:Huella>[0-9A-F]{64}</, `<sum1:Huella>${h2}<`);
    const fecha = /<sum1:FechaHoraHusoGenRegistro>([^<]*)</.exec(x4)![1]!;
    const huella = huellaAlta({
      IDEmisorFactura: VF, NumSerieFactura: 'V4', FechaExpedicionFactura: '20-11-2026', TipoFactura: 'F2',
      CuotaTotal: '2.10', ImporteTotal: '12.10', Huella: h2, FechaHoraHusoGenRegistro: fecha,
    });
    setXml(db, id4, x4.replace(prev, forked).replace(/<sum1:Huella>[0-9A-F]{64}<\/sum1:Huella><\/sum1:RegistroAlta>/, `<sum1:Huella>${huella}</sum1:Huella></sum1:RegistroAlta>`));
    db.close();
    const v = verify(file);
    const fork = v.problemas.filter((p) => p.tipo === 'bifurcacion');
    expect(fork).toEqual([
      { tipo: 'bifurcacion', clave: VF_CHAIN, idRegistro: id4, serie: 'V', numero: '4', esperado: ids[`${VF_CHAIN}#3`], encontrado: ids[`${VF_CHAIN}#2`] },
    ]);
    // Record 5 still names record 4's old huella: dangling too.
    expect(v.problemas.filter((p) => p.tipo !== 'bifurcacion').map((p) => [p.tipo, p.idRegistro])).toEqual([['enlace_colgante', ids[`${VF_CHAIN}#5`]]]);
  });
});

describe('TicketBAI: each XAdES signature verified (firma_invalida)', () => {
  it('an amount changed inside a signed invoice → firma_invalida on that record', () => {
    const { file, db } = copia();
    const id = ids[`${TBAI_A}#2`]!;
    const xml = xmlOf(db, id);
    expect(xml).toContain('<ImporteTotalFactura>12.10</ImporteTotalFactura>');
    setXml(db, id, xml.replace('<ImporteTotalFactura>12.10</ImporteTotalFactura>', '<ImporteTotalFactura>1.10</ImporteTotalFactura>'));
    db.close();
    const v = verify(file);
    expect(v.problemas).toEqual([expect.objectContaining({ tipo: 'firma_invalida', clave: TBAI_A, idRegistro: id, numero: '3' })]);
  });
  it('a chaining field changed → the signature fails and the link does not match', () => {
    const { file, db } = copia();
    const id = ids[`${TBAI_A}#3`]!;
    const xml = xmlOf(db, id);
    setXml(db, id, xml.replace(/<SignatureValueFirmaFacturaAnterior>./, '<SignatureValueFirmaFacturaAnterior>#'));
    db.close();
    const tipos = verify(file).problemas.filter((p) => p.idRegistro === id).map((p) => p.tipo);
    expect(tipos).toEqual(['firma_invalida', 'enlace_colgante']);
  });
});

describe('Outbox rows whose record is in no chain (fuera_de_cadena)', () => {
  it('a submission job for a record without its XML → reported', () => {
    const { file, db } = copia();
    const id = ids[`${VF_CHAIN}#6`]!;
    db.run('DELETE FROM registro_documentos WHERE registroId = ?', id);
    db.close();
    const v = verify(file);
    expect(v.problemas).toContainEqual(expect.objectContaining({ tipo: 'fuera_de_cadena', idRegistro: id, clave: VF_CHAIN }));
  });
  it('a submission job for a record that does not exist → reported', () => {
    const { file, db } = copia();
    db.run("INSERT INTO submission_jobs (id, registroId, entorno, queueKey, estado, intentos, siguienteIntentoEn, creadoEn) VALUES ('job_x', 'reg_fantasma', 'test', 'test|verifactu|B12345674', 'pendiente', 0, '2026-11-20T10:00:00.000Z', '2026-11-20T10:00:00.000Z')");
    db.close();
    expect(verify(file).problemas).toEqual([
      { tipo: 'fuera_de_cadena', clave: 'test|verifactu|B12345674', idRegistro: 'reg_fantasma', serie: '', numero: '' },
    ]);
  });
});

describe('npm run admin -- verify-chains: exit 0 only when everything verifies; --json', () => {
  /** The CLI on a database: its file's data dir, or (PostgreSQL) its URL as POS_DATABASE_URL. */
  async function cli(database: string, ...args: string[]): Promise<{ code: number; stdout: string }> {
    const where = onPostgres() ? { POS_DATA_DIR: t.dataDir, POS_DATABASE_URL: database } : { POS_DATA_DIR: path.dirname(database) };
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', path.join(root, 'engine/src/bin/admin.ts'), 'verify-chains', ...args], {
        cwd: root,
        env: { ...process.env, ...where },
      });
      return { code: 0, stdout };
    } catch (e) {
      const err = e as { code: number; stdout: string };
      return { code: err.code, stdout: err.stdout };
    }
  }
  it('clean → 0 with a readable report; --json → the panel shape; while the engine runs', async () => {
    const text = await cli(original);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`OK   ${VF_CHAIN}  7 records  device caja-1`);
    const json = await cli(original, '--json', '--nif', VF);
    expect(json.code).toBe(0);
    const v = verificacionCadenasSchema.parse(JSON.parse(json.stdout));
    expect(v.cadenas.map((c) => c.clave).sort()).toEqual([VF_CHAIN, `test|verifactu|${VF}|dev:caja-2`]);
  });
  it('a problem → exit 1 and the record in the report; bad options → 2', async () => {
    const { file, db } = copia();
    const id = ids[`${TBAI_A}#2`]!;
    setXml(db, id, xmlOf(db, id).replace('<ImporteTotalFactura>12.10<', '<ImporteTotalFactura>1.10<'));
    db.close();
    const res = await cli(file);
    expect(res.code).toBe(1);
    expect(res.stdout).toContain(`firma_invalida: ${TBAI_A} record ${id} invoice TA3`);
    const json = await cli(file, '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ correcto: false });
    expect((await cli(file, '--entorno', 'prod')).code).toBe(2);
  });
});
