/**
 * `npm run admin -- <command>`: accounts, keys, plans, billing state and the compliance
 * declaration, for the service team and support staff. Works on the same data dir as the engine
 * (POS_DATA_DIR) or PostgreSQL database (POS_DATABASE_URL), also while it runs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { entornoSchema, haciendaSchema } from '../../../src-shared/api/common';
import { estadoCuentaSchema } from '../../../src-shared/api/cuenta';
import { validateNif } from '../../../src-shared/nif';
import { faseAltaCapacidadSchema } from '../../../src-shared/api/clientes';
import { isKnownPlan } from '../account/plans';
import type { Account } from '../account/store';
import { configFromEnv, resolveConfig } from '../config';
import { buildContext, type EngineContext } from '../context';
import { SqliteDatabase, type Database } from '../db/database';
import { PostgresDatabase } from '../db/postgres';
import { issueTillCredential } from '../devices/till-credential-panel-routes';
import { crearCopia, prepararRestauracion } from '../no-verifactu/copias.sqlite';
import { EngineError } from '../core/errors';
import { silentLogger } from '../platform/logger';
import { systemClock } from '../platform/clock';
import { verificarCadenasEn } from '../verification/verificar';
import type { VerificacionCadenas } from '../../../src-shared/api/verificacion';

const USAGE = `Usage: npm run admin -- <command> [options]
  account list
  account create --nif NIF --nombre NAME [--plan basico|profesional|empresa] [--limite-test N] [--limite-live N]
  account set --account ID [--plan P] [--estado activa|prueba|suspendida|cancelada|pago_pendiente] [--facturacion on|off] [--limite-test N] [--limite-live N]
  key list --account ID
  key create --account ID --entorno test|live
  key revoke --key KEY_ID
  key rotate --key KEY_ID
  issuer add --account ID --entorno test|live --nif NIF --nombre NAME [--hacienda verifactu|tbai-araba|tbai-bizkaia|tbai-gipuzkoa]
  issuer mode NIF verifactu|no_verifactu [--entorno test|live]   (the installation's SIF mode; default entorno test)
  anomalias NIF [--entorno test|live]   (NO VERI*FACTU anomaly detection: records and events; the run is logged as events)
  requerimiento REF --nif NIF --desde ISO --hasta ISO [--entorno test|live]   (sends the kept NO VERI*FACTU records of the period to the AEAT on its requirement REF)
  exportar NIF --desde ISO --hasta ISO [--entorno test|live] [--dir PATH]   (records and events of the period as JSON Lines files, logged as events 08/09; dir default DATA_DIR/exportaciones)
  copia crear [--a FICHERO]   (a consistent copy of the database, also while the engine runs; default DATA_DIR/copias/engine-<instant>.sqlite)
  copia restaurar FICHERO     (checks the copy and restores it at the engine's next start, keeping the current database beside it;
                               NO VERI*FACTU installations get event 07 «restauración de copia de seguridad» in their logs)
  declaration publish
  declaration show
  devices phase NIF no_contratada|preparacion|activa   (the issuer's high-capacity phase, TEST and LIVE)
  devices list NIF                                      (phase, devices, series and observed ids per environment)
  verify-chains [--nif NIF] [--entorno test|live] [--json]   (exit 0 only when every chain verifies)
  till add NIF ETIQUETA [ID_MAQUINA]   (a till of a shop server: its own token and keys, shown once, and its engine.json)
  till list NIF
  till revoke NIF ID_MAQUINA           (its token and keys refused at once)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name];
  if (!value) fail(`--${name} is required`);
  return value;
}

function nifOption(values: Record<string, string | undefined>): string {
  const checked = validateNif(required(values, 'nif'));
  if (!checked.valid) fail(`--nif is not a valid Spanish tax ID: ${checked.reason}`);
  return checked.normalized;
}

function optionalInt(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a whole number`);
  return n;
}

/** The account that holds the issuer NIF (in either environment). */
function accountOfIssuer(ctx: EngineContext, rawNif: string | undefined): { account: Account; nif: string } {
  const checked = validateNif(rawNif ?? '');
  if (!checked.valid) fail(`NIF is not a valid Spanish tax ID: ${checked.reason}`);
  const holder = ctx.issuers.withNif(checked.normalized).find((r) => r.issuer.estado !== 'eliminado') ?? ctx.issuers.withNif(checked.normalized)[0];
  const account = holder && ctx.accounts.getAccount(holder.issuer.accountId);
  if (!account) fail(`no issuer ${checked.normalized}`);
  return { account, nif: checked.normalized };
}

/** A refusal of the engine's rules: its code and message, exit code 1. */
function refused(error: unknown): never {
  if (!(error instanceof EngineError)) throw error;
  process.stderr.write(`${error.code}: ${error.message}\n`);
  process.exit(1);
}

function devices(ctx: EngineContext, verb: string | undefined, positionals: string[]): unknown {
  const { account, nif } = accountOfIssuer(ctx, positionals[0]);
  try {
    if (verb === 'phase') {
      const fase = faseAltaCapacidadSchema.safeParse(positionals[1]);
      if (!fase.success) fail('fase: no_contratada|preparacion|activa');
      return { nif, ...ctx.devices.setPhase(account.id, nif, fase.data) };
    }
    const held = entornoSchema.options.filter((entorno) => ctx.issuers.findClient(account.id, entorno, nif));
    return { nif, cuenta: account.id, entornos: held.map((entorno) => ctx.devices.status({ account, entorno }, nif)) };
  } catch (error) {
    refused(error);
  }
}

/** What a till's engine.json needs of the server: its URLs and pinned fingerprint (the keys file of its start). */
async function serverForTills(dataDir: string): Promise<Record<string, string>> {
  let keys: Record<string, unknown> = {};
  try {
    keys = JSON.parse(await readFile(path.join(dataDir, 'demo-keys.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    // Not started yet: the till's engine.json is completed by hand.
  }
  const text = (name: string) => (typeof keys[name] === 'string' ? (keys[name] as string) : undefined);
  const panel = text('panelUrl');
  return {
    ...(text('billingUrl') ? { url: text('billingUrl')! } : {}),
    ...(text('manageUrl') ? { manageUrl: text('manageUrl')! } : {}),
    ...(panel ? { panelUrl: new URL(panel).origin } : {}),
    ...(text('fingerprint256') ? { fingerprint256: text('fingerprint256')! } : {}),
  };
}

async function tills(ctx: EngineContext, verb: string | undefined, positionals: string[]): Promise<unknown> {
  const { account, nif } = accountOfIssuer(ctx, positionals[0]);
  if (verb === 'list') return ctx.tillCredentials.list(account.id).filter((c) => c.nifEmisor === nif);
  if (verb === 'revoke') {
    const id = positionals[1] ?? fail('the till’s ID_MAQUINA is required');
    return { idMaquina: id, revocada: ctx.tillCredentials.revokeMachine(account.id, id) };
  }
  const etiqueta = positionals[1] ?? fail('ETIQUETA (the till’s name) is required');
  const idMaquina = positionals[2];
  if (idMaquina !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(idMaquina)) fail('ID_MAQUINA: 1–64 characters of A-Z a-z 0-9 . _ -');
  try {
    const issued = issueTillCredential({ credentials: ctx.tillCredentials, devices: ctx.devices, ids: ctx.config.ids }, account, { nifEmisor: nif, etiqueta: etiqueta.slice(0, 120), idMaquina });
    return {
      ...issued,
      engineJson: { ...(await serverForTills(ctx.config.dataDir)), idMaquina: issued.idMaquina, tillToken: issued.token, nifEmisor: nif },
      note: 'shown once: only their hashes are stored; engineJson goes to the till’s <userData>/engine.json (mode 0600)',
    };
  } catch (error) {
    refused(error);
  }
}

/** `issuer mode`, `anomalias` and `exportar`: NIF (and mode) as positionals, `--entorno` (test by default). */
function noVerifactu(ctx: EngineContext, command: 'mode' | 'anomalias' | 'exportar' | 'requerimiento', args: string[]): unknown {
  let parsed: {
    values: { entorno?: string | undefined; desde?: string | undefined; hasta?: string | undefined; dir?: string | undefined; nif?: string | undefined };
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args,
      options: { entorno: { type: 'string' }, desde: { type: 'string' }, hasta: { type: 'string' }, dir: { type: 'string' }, nif: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const entorno = entornoSchema.safeParse(parsed.values.entorno ?? 'test');
  if (!entorno.success) fail('--entorno test|live');
  const checked = validateNif((command === 'requerimiento' ? parsed.values.nif : parsed.positionals[0]) ?? '');
  if (!checked.valid) fail(`NIF is not a valid Spanish tax ID: ${checked.reason}`);
  const issuer = ctx.issuers.find(entorno.data, checked.normalized);
  if (!issuer) fail(`no issuer ${checked.normalized} in ${entorno.data}`);
  const instant = (name: 'desde' | 'hasta') => {
    const raw = parsed.values[name];
    const at = raw === undefined ? Number.NaN : Date.parse(raw);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(raw ?? '') || Number.isNaN(at)) fail(`--${name} must be an ISO 8601 date-time (e.g. 2026-11-01T00:00:00+01:00)`);
    return new Date(at);
  };
  if (command === 'requerimiento') {
    const ref = parsed.positionals[0] ?? '';
    if (!/^[A-Za-z0-9]{1,18}$/.test(ref)) fail('REF: the requirement reference, 1–18 letters and digits (the AEAT refuses anything else: 4133)');
    const periodo = { desde: instant('desde'), hasta: instant('hasta') };
    return ctx.noVerifactu.requerimientos.remitir(issuer, { ref, ...periodo }).catch((error: unknown) => refused(error));
  }
  try {
    if (command === 'anomalias') return ctx.noVerifactu.anomalias.ejecutar(issuer);
    if (command === 'exportar') {
      const dir = parsed.values.dir ?? path.join(ctx.config.dataDir, 'exportaciones');
      return ctx.noVerifactu.exportaciones.exportar(issuer, { desde: instant('desde'), hasta: instant('hasta') }, dir);
    }
    const modo = parsed.positionals[1];
    if (modo !== 'verifactu' && modo !== 'no_verifactu') fail('mode: verifactu|no_verifactu');
    return ctx.noVerifactu.modos.cambiar(issuer, modo);
  } catch (error) {
    refused(error);
  }
}

/** `copia crear` / `copia restaurar`: the engine's own backups (no-verifactu/restauracion.ts, copias.sqlite.ts). */
async function copia(ctx: EngineContext, verb: 'crear' | 'restaurar', args: string[]): Promise<unknown> {
  let parsed: { values: { a?: string | undefined }; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: { a: { type: 'string' } }, allowPositionals: true, strict: true });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const { dataDir, clock, databaseUrl } = ctx.config;
  // The nodes' shared database is PostgreSQL's to copy and restore (README, "Beyond one machine").
  if (databaseUrl !== undefined) fail('copia works on a till\'s SQLite file; on PostgreSQL back up and restore with pg_dump / pg_basebackup');
  try {
    if (verb === 'crear') return await crearCopia(dataDir, clock.now(), parsed.values.a);
    const fichero = parsed.positionals[0] ?? fail('FICHERO: the copy to restore is required');
    return await prepararRestauracion(dataDir, fichero, clock.now());
  } catch (error) {
    refused(error);
  }
}

async function run(ctx: EngineContext, args: string[]): Promise<unknown> {
  const [noun, verb, ...rest] = args;
  if (noun === 'copia' && (verb === 'crear' || verb === 'restaurar')) return copia(ctx, verb, rest);
  if (noun === 'issuer' && verb === 'mode') return noVerifactu(ctx, 'mode', rest);
  if (noun === 'anomalias' && verb !== undefined) return noVerifactu(ctx, 'anomalias', [verb, ...rest]);
  if (noun === 'exportar' && verb !== undefined) return noVerifactu(ctx, 'exportar', [verb, ...rest]);
  if (noun === 'requerimiento' && verb !== undefined) return noVerifactu(ctx, 'requerimiento', [verb, ...rest]);
  if (noun === 'devices' && (verb === 'phase' || verb === 'list')) return devices(ctx, verb, rest);
  if (noun === 'till' && (verb === 'add' || verb === 'list' || verb === 'revoke')) return tills(ctx, verb, rest);
  const { values } = parseArgs({
    args: rest,
    options: {
      nif: { type: 'string' },
      nombre: { type: 'string' },
      plan: { type: 'string' },
      account: { type: 'string' },
      entorno: { type: 'string' },
      key: { type: 'string' },
      estado: { type: 'string' },
      facturacion: { type: 'string' },
      hacienda: { type: 'string' },
      'limite-test': { type: 'string' },
      'limite-live': { type: 'string' },
    },
    strict: true,
  });
  const plan = values.plan;
  if (plan !== undefined && !isKnownPlan(plan, ctx.config.limits)) fail(`unknown plan ${plan}`);
  switch (`${noun} ${verb}`) {
    case 'account list':
      return ctx.accounts.listAccounts();
    case 'account create':
      return ctx.accounts.createAccount({
        nif: nifOption(values),
        nombre: required(values, 'nombre'),
        plan: plan ?? 'basico',
        limiteClientesTest: optionalInt(values['limite-test'], 'limite-test') ?? null,
        limiteClientesLive: optionalInt(values['limite-live'], 'limite-live') ?? null,
      });
    case 'account set': {
      const id = required(values, 'account');
      if (!ctx.accounts.getAccount(id)) fail(`no account ${id}`);
      const estado = values.estado === undefined ? undefined : estadoCuentaSchema.safeParse(values.estado);
      if (estado && !estado.success) fail('--estado is not a valid estadoCuenta');
      if (values.facturacion !== undefined && !['on', 'off'].includes(values.facturacion)) fail('--facturacion on|off');
      const limiteTest = optionalInt(values['limite-test'], 'limite-test');
      const limiteLive = optionalInt(values['limite-live'], 'limite-live');
      ctx.accounts.updateAccount(id, {
        ...(plan ? { plan } : {}),
        ...(estado?.success ? { estadoCuenta: estado.data } : {}),
        ...(values.facturacion ? { facturacionActiva: values.facturacion === 'on' ? 1 : 0 } : {}),
        ...(limiteTest !== undefined ? { limiteClientesTest: limiteTest } : {}),
        ...(limiteLive !== undefined ? { limiteClientesLive: limiteLive } : {}),
      });
      return ctx.accounts.getAccount(id);
    }
    case 'key list':
      return ctx.accounts.listKeys(required(values, 'account')).map(({ keyHash: _hash, ...key }) => key);
    case 'key create': {
      const account = required(values, 'account');
      if (!ctx.accounts.getAccount(account)) fail(`no account ${account}`);
      const entorno = entornoSchema.safeParse(values.entorno);
      if (!entorno.success) fail('--entorno test|live');
      const created = ctx.accounts.createKey(account, entorno.data);
      return { id: created.id, key: created.rawKey, note: 'shown once: only its hash is stored' };
    }
    case 'key revoke':
      return { revoked: ctx.accounts.revokeKey(required(values, 'key')) };
    case 'key rotate': {
      const created = ctx.accounts.rotateKey(required(values, 'key'));
      return { id: created.id, key: created.rawKey, note: 'shown once: only its hash is stored' };
    }
    case 'issuer add': {
      const entorno = entornoSchema.safeParse(values.entorno);
      if (!entorno.success) fail('--entorno test|live');
      const hacienda = haciendaSchema.safeParse(values.hacienda ?? 'verifactu');
      if (!hacienda.success) fail('--hacienda is not valid');
      return ctx.issuers.create({
        accountId: required(values, 'account'),
        entorno: entorno.data,
        nif: nifOption(values),
        nombre: required(values, 'nombre'),
        hacienda: hacienda.data,
      });
    }
    case 'declaration publish': {
      const published = await ctx.declarations.publish();
      return { key: published.key, version: published.version, lastModified: published.lastModified };
    }
    case 'declaration show': {
      const current = ctx.declarations.current();
      return current ? { key: current.key, version: current.version, lastModified: current.lastModified } : null;
    }
    default:
      fail(`unknown command: ${args.join(' ')}`);
  }
}

/** A readable report for support staff; `--json` gives the panel route's shape instead. */
function informe(v: VerificacionCadenas): string {
  const lines = v.cadenas.map(
    (c) => `${c.correcta ? 'OK  ' : 'FAIL'} ${c.clave}  ${c.registros} records${c.idMaquina ? `  device ${c.idMaquina}` : ''}`,
  );
  for (const p of v.problemas) {
    const factura = p.serie || p.numero ? ` invoice ${p.serie}${p.numero}` : '';
    const detalle = [p.esperado !== undefined ? `expected ${p.esperado}` : '', p.encontrado !== undefined ? `found ${p.encontrado}` : '']
      .filter(Boolean)
      .join(', ');
    lines.push(`${p.tipo}: ${p.clave} record ${p.idRegistro}${factura}${detalle ? ` (${detalle})` : ''}`);
  }
  lines.push(v.correcto ? `all ${v.cadenas.length} chains verify` : `${v.problemas.length} problems`);
  return lines.join('\n');
}

/** `verify-chains`: reads a snapshot of the database (file or POS_DATABASE_URL); never migrates or writes. */
function verifyChains(args: string[]): void {
  let values: { nif?: string | undefined; entorno?: string | undefined; json?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args, options: { nif: { type: 'string' }, entorno: { type: 'string' }, json: { type: 'boolean' } }, strict: true }));
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  const entorno = values.entorno === undefined ? undefined : entornoSchema.safeParse(values.entorno);
  if (entorno && !entorno.success) fail('--entorno test|live');
  if (values.nif !== undefined && !validateNif(values.nif).valid) fail('--nif is not a valid Spanish tax ID');
  const config = resolveConfig(configFromEnv());
  // POS_DATABASE_URL: the PostgreSQL database every node shares; otherwise the data dir's file.
  const database = config.databaseUrl
    ? ({ dialect: 'postgres', file: config.databaseUrl } as const)
    : ({ dialect: 'sqlite', file: path.join(config.dataDir, 'engine.sqlite') } as const);
  let result: VerificacionCadenas;
  try {
    result = verificarCadenasEn(database, { nif: values.nif, entorno: entorno?.data }, systemClock.now());
  } catch (e) {
    process.stderr.write(`cannot read ${database.dialect === 'sqlite' ? database.file : 'the PostgreSQL database'}: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  }
  process.stdout.write(`${values.json === true ? JSON.stringify(result, null, 2) : informe(result)}\n`);
  process.exitCode = result.correcto ? 0 : 1;
}

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === 'verify-chains' && !argv.includes('--help')) {
    verifyChains(argv.slice(1));
    return;
  }
  if (argv.length < 2 || argv.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const config = resolveConfig(configFromEnv());
  // POS_DATABASE_URL: the PostgreSQL database the engine's nodes share; otherwise the data dir's file.
  const db: Database = config.databaseUrl ? new PostgresDatabase(config.databaseUrl) : SqliteDatabase.open(config.dataDir);
  await db.migrate();
  try {
    const result = await run(buildContext(config, db, silentLogger), argv);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await db.close();
  }
}

await main(process.argv.slice(2));
