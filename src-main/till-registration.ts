// Each installed till registers itself as a device of its issuer (spec: Devices) once its engine
// is ready: the identity from till-identity.json, the label «Caja 1» (never the computer's name,
// which staff cannot tell apart), or the next free «Caja N» when another active till of the issuer
// has it (409 DEVICE_LABEL_TAKEN). Reactivates a deactivated registration; 409
// MACHINE_ALREADY_REGISTERED means it is done, 409 SHARDING_NOT_ENABLED that the issuer is not in
// high-capacity mode (nothing to do).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { nombreLibre } from '../src-shared/nombre-caja';

export type RegistrationOutcome = 'registrado' | 'reactivado' | 'ya_registrado' | 'sin_alta_capacidad' | 'error';

export interface RegistrationTarget {
  manageUrl: string;
  apiKey: string;
  /** The issuer; when absent, the account's own company as GET /v1/cuenta names it. */
  nifEmisor?: string | undefined;
  /** The billing API (for /v1/cuenta) when nifEmisor is absent. */
  billingUrl?: string | undefined;
}

export interface RegistrationDeps {
  fetch: typeof fetch;
  log: { info(message: string, data?: Record<string, unknown>): void; warn(message: string, data?: Record<string, unknown>): void };
}

const errorBody = z.object({ code: z.string().optional() });
const cuentaBody = z.object({ nifClientePrincipal: z.string() });
const dispositivosBody = z.object({ dispositivos: z.array(z.object({ etiqueta: z.string(), activo: z.boolean() })) });
/** Enough tries for tills starting together; each one reads the names taken again. */
const LABEL_TRIES = 5;

/** The spec's etiqueta: plain text, at most 120 characters. */
export function etiquetaFrom(computerName: string): string {
  return computerName.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 120);
}

export async function registerTill(
  target: RegistrationTarget,
  till: { idMaquina: string; etiqueta: string },
  deps: RegistrationDeps,
): Promise<RegistrationOutcome> {
  const headers = { 'x-api-key': target.apiKey, 'content-type': 'application/json' };
  try {
    let nif = target.nifEmisor;
    if (!nif && target.billingUrl) {
      const cuenta = await deps.fetch(`${target.billingUrl}/v1/cuenta`, { headers: { 'x-api-key': target.apiKey } });
      nif = cuentaBody.parse(await cuenta.json()).nifClientePrincipal;
    }
    if (!nif) throw new Error('no issuer to register with');
    const url = `${target.manageUrl}/v1/clientes/${encodeURIComponent(nif)}/dispositivos`;
    let etiqueta = etiquetaFrom(till.etiqueta);
    let res: Response;
    let code: string | undefined;
    for (let attempt = 1; ; attempt++) {
      res = await deps.fetch(url, { method: 'POST', headers, body: JSON.stringify({ idMaquina: till.idMaquina, etiqueta }) });
      code = res.status === 409 ? errorBody.safeParse(await res.json()).data?.code : undefined;
      if (code !== 'DEVICE_LABEL_TAKEN' || attempt === LABEL_TRIES) break;
      // Another till of the issuer goes by this name: the next free one like it («Caja 2»…).
      const lista = dispositivosBody.parse(await (await deps.fetch(url, { headers: { 'x-api-key': target.apiKey } })).json());
      etiqueta = nombreLibre(lista.dispositivos, etiqueta);
    }
    const outcome: RegistrationOutcome =
      res.status === 201
        ? 'registrado'
        : res.status === 200
          ? 'reactivado'
          : code === 'MACHINE_ALREADY_REGISTERED'
            ? 'ya_registrado'
            : code === 'SHARDING_NOT_ENABLED'
              ? 'sin_alta_capacidad'
              : 'error';
    if (outcome === 'error') deps.log.warn('till registration refused', { status: res.status, nif, idMaquina: till.idMaquina });
    else deps.log.info('till registration', { outcome, nif, idMaquina: till.idMaquina, etiqueta });
    return outcome;
  } catch (error) {
    deps.log.warn('till registration failed', { error: error instanceof Error ? error.message : String(error), idMaquina: till.idMaquina });
    return 'error';
  }
}

const demoKeysSchema = z.object({ test: z.string().optional(), live: z.string().optional(), nifEmisor: z.string().optional() });

/**
 * Where a till with its own engine registers: with the till's TEST and LIVE keys from the data
 * dir's keys file (both registries, one per environment). A till of a shared engine does not: the
 * server registered it when it issued the till's credential (POST /panel/v1/cajas).
 */
export function registrationTargets(input: { dataDir: string; manageUrl: string }): RegistrationTarget[] {
  let keys: z.infer<typeof demoKeysSchema>;
  try {
    keys = demoKeysSchema.parse(JSON.parse(readFileSync(path.join(input.dataDir, 'demo-keys.json'), 'utf8')));
  } catch {
    return [];
  }
  return [keys.test, keys.live].filter((k): k is string => !!k).map((apiKey) => ({ manageUrl: input.manageUrl, apiKey, nifEmisor: keys.nifEmisor }));
}
