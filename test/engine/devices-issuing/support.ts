// Shared set-up of the devices-issuing tests: issuers in both environments, phases (the service
// team's switch) and the readings every test makes of chains and XML.
import type { Database } from '../../../engine/src/db/database';
import type { Entorno } from '../../../src-shared/api/common';
import type { FaseAltaCapacidad } from '../../../engine/src/db/schema/devices';
import { DeviceStore } from '../../../engine/src/devices/store';
import { aFacturaF2 } from '../../fixtures/verifactu';
import type { EngineWithEmulators } from '../../support/filing';

/** VeriFactu issuers known to the AEAT emulator's census, one per phase. */
export const VF = {
  no_contratada: { nif: 'A23456783', nombre: 'DISTRIBUCIONES EJEMPLO SA' },
  preparacion: { nif: 'B76543214', nombre: 'CAFETERIA LA PRUEBA SL' },
  activa: { nif: 'B99999997', nombre: 'ASESORIA FISCAL MODELO SL' },
} as const;

/** Creates the VeriFactu issuers in TEST and LIVE (LIVE with its representation signed) and sets their phases. */
export function setUpVerifactuIssuers(env: EngineWithEmulators): void {
  const ctx = env.t.engine.context;
  const accountId = ctx.accounts.listAccounts()[0]!.id;
  for (const [fase, emisor] of Object.entries(VF) as [FaseAltaCapacidad, { nif: string; nombre: string }][]) {
    for (const entorno of ['test', 'live'] as const) {
      ctx.issuers.create({ accountId, entorno, ...emisor, hacienda: 'verifactu', estadoRepresentacion: 'firmado' });
    }
    setPhase(env, emisor.nif, fase);
  }
}

/** The service team's phase switch (admin CLI / panel), one value for TEST and LIVE. */
export function setPhase(env: EngineWithEmulators, nif: string, fase: FaseAltaCapacidad): void {
  const accountId = env.t.engine.context.accounts.listAccounts()[0]!.id;
  devicesOf(env).setPhase(accountId, nif, fase, env.t.clock.now().toISOString());
}

export const keyOf = (env: EngineWithEmulators, entorno: Entorno) => env.t.keys[entorno];

const devicesOf = (env: EngineWithEmulators) => new DeviceStore(env.t.engine.context.db);

/** POST /v1/clientes/{nif}/dispositivos: registers (or reactivates) a device in the key's environment. */
export async function registerDevice(env: EngineWithEmulators, entorno: Entorno, nif: string, idMaquina: string): Promise<void> {
  const res = await env.t.manage('POST', `/v1/clientes/${nif}/dispositivos`, { key: keyOf(env, entorno), body: { idMaquina } });
  if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`register ${idMaquina}: ${res.statusCode} ${res.body}`);
}

/** DELETE /v1/clientes/{nif}/dispositivos/{idMaquina}. */
export async function deactivateDevice(env: EngineWithEmulators, entorno: Entorno, nif: string, idMaquina: string): Promise<void> {
  const res = await env.t.manage('DELETE', `/v1/clientes/${nif}/dispositivos/${idMaquina}`, { key: keyOf(env, entorno) });
  if (res.statusCode !== 200) throw new Error(`deactivate ${idMaquina}: ${res.statusCode} ${res.body}`);
}

/** POST /v1/clientes/{nif}/dispositivos/series-centralizadas. */
export async function reserveSeries(env: EngineWithEmulators, entorno: Entorno, nif: string, series: string[]): Promise<void> {
  const res = await env.t.manage('POST', `/v1/clientes/${nif}/dispositivos/series-centralizadas`, { key: keyOf(env, entorno), body: { series } });
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`reserve ${series.join(',')}: ${res.statusCode} ${res.body}`);
}

/** GET /v1/clientes/{nif}/dispositivos in the key's environment. */
export async function devicesView(env: EngineWithEmulators, entorno: Entorno, nif: string) {
  const res = await env.t.manage('GET', `/v1/clientes/${nif}/dispositivos`, { key: keyOf(env, entorno) });
  if (res.statusCode !== 200) throw new Error(`GET dispositivos: ${res.statusCode} ${res.body}`);
  return res.json() as {
    faseAltaCapacidad: string;
    modoCadena: string;
    dispositivos: { idMaquina: string; activo: boolean; numeroInstalacion?: string }[];
    series: { serie: string; idMaquinaPropietaria: string }[];
    idsMaquinaVistos: { idMaquina: string; primeraVez: string; ultimaVez: string; registrado: boolean }[];
  };
}

/** A VeriFactu ticket of `emisor` on `serie`/`numero`, with `idMaquina` when given. */
export function ticket(emisor: { nif: string; nombre: string }, serie: string, numero: string, idMaquina?: string) {
  return aFacturaF2({ emisor: { ...emisor }, cabecera: { serie, numero }, ...(idMaquina ? { idMaquina } : {}) });
}

export function dbRows<T>(db: Database, sql: string, ...params: (string | number | null)[]): T[] {
  return db.statement<T>(sql).all(...params);
}

export interface ChainRow {
  id: string;
  chainSeq: number;
  huella: string | null;
  huellaAnterior: string | null;
  idMaquina: string | null;
  invoiceId: string;
  tipo: string;
  xml: string;
}

/** A chain's records in order, with their XML. */
export function chainOf(env: EngineWithEmulators, chainKey: string): ChainRow[] {
  return env.t.engine.context.invoices.chain(chainKey) as unknown as ChainRow[];
}

/** Every chain key holding a record of the invoice. */
export function chainKeysOfInvoice(env: EngineWithEmulators, idFactura: string): string[] {
  return dbRows<{ chainKey: string }>(env.t.engine.context.db, 'SELECT DISTINCT chainKey FROM registros WHERE invoiceId = ?', idFactura).map((r) => r.chainKey);
}

export const numeroInstalacionIn = (xml: string) => /<sum1:NumeroInstalacion>([^<]*)</.exec(xml)?.[1] ?? /NumeroInstalacion>([^<]*)</.exec(xml)?.[1];

/** Each record links to the one before it (VeriFactu huella chain), the first to none. */
export function expectLinked(chain: ChainRow[]): boolean {
  return chain.every((r, i) => r.chainSeq === i + 1 && r.huellaAnterior === (i === 0 ? null : chain[i - 1]!.huella));
}

export function counts(env: EngineWithEmulators) {
  const one = (sql: string) => (env.t.engine.context.db.statement(sql).get() as { n: number }).n;
  return {
    invoices: one('SELECT COUNT(*) AS n FROM invoices'),
    registros: one('SELECT COUNT(*) AS n FROM registros'),
    jobs: one('SELECT COUNT(*) AS n FROM submission_jobs'),
    series: one('SELECT COUNT(*) AS n FROM device_series'),
    observations: one('SELECT COUNT(*) AS n FROM device_observations'),
  };
}
