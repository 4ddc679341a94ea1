import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import type { Entorno } from '../../../src-shared/api/common';
import { normalizeNif } from '../../../src-shared/nif';
import { idMaquina as idMaquinaSchema } from '../../../src-shared/primitives';
import type { Account, AccountStore } from '../account/store';
import { EngineError, notFound, tillKeyMissing } from '../core/errors';
import type { IdGenerator } from '../platform/ids';
import type { DeviceService } from './service';
import type { IssuedTillCredential, TillCredentials } from './till-credentials';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export interface TillCredentialPanelDeps {
  credentials: TillCredentials;
  devices: DeviceService;
  accounts: AccountStore;
  ids: IdGenerator;
  /** The server's own keys (the data dir's keys file): they say which account the shop is. */
  serverKeys: () => Promise<{ test?: string | undefined; live?: string | undefined } | undefined>;
  /** What a till needs in its `engine.json` besides its credential (URLs, pinned fingerprint). */
  engineJsonBase: () => Record<string, string>;
}

type Outcome = 'registrado' | 'reactivado' | 'ya_registrado' | 'sin_alta_capacidad' | 'sin_emisor';

function newIdMaquina(ids: IdGenerator): string {
  const random = ids.secret(12);
  let id = 'TPV-';
  for (let i = 0; i < 12; i++) id += CROCKFORD[random.charCodeAt(i % random.length) % 32];
  return id;
}

function registerDevice(devices: DeviceService, account: Account, entorno: Entorno, nif: string, idMaquina: string, etiqueta: string): Outcome {
  try {
    return devices.register({ account, entorno }, nif, { idMaquina, etiqueta }).status === 201 ? 'registrado' : 'reactivado';
  } catch (error) {
    if (!(error instanceof EngineError)) throw error;
    if (error.code === 'MACHINE_ALREADY_REGISTERED') return 'ya_registrado';
    if (error.code === 'SHARDING_NOT_ENABLED') return 'sin_alta_capacidad';
    if (error.httpStatus === 404) return 'sin_emisor';
    throw error;
  }
}

/**
 * A till's credential (token and keys, shown once) and its registration as a device of the issuer
 * in TEST and LIVE where the high-capacity mode allows it: the panel route and the admin CLI.
 */
export function issueTillCredential(
  deps: { credentials: TillCredentials; devices: DeviceService; ids: IdGenerator },
  account: Account,
  input: { nifEmisor: string; etiqueta: string; idMaquina?: string | undefined },
): IssuedTillCredential & { dispositivo: { test: Outcome; live: Outcome } } {
  const idMaquina = input.idMaquina ?? newIdMaquina(deps.ids);
  const issued = deps.credentials.issue(account, { nifEmisor: input.nifEmisor, idMaquina, etiqueta: input.etiqueta });
  const dispositivo = {
    test: registerDevice(deps.devices, account, 'test', input.nifEmisor, idMaquina, input.etiqueta),
    live: registerDevice(deps.devices, account, 'live', input.nifEmisor, idMaquina, input.etiqueta),
  };
  return { ...issued, dispositivo };
}

const cajaSchema = z.object({
  idCredencial: z.string(),
  idMaquina: z.string(),
  etiqueta: z.string(),
  nifEmisor: z.string(),
  creadoEn: z.string(),
  revocadoEn: z.string().nullable(),
});

/**
 * The administrator registers each till of a shop-server engine (admin routes: panel-auth.ts):
 * the till gets its own token and keys (shown once), bound to its `idMaquina`, and is registered
 * as a device of the issuer in TEST and LIVE where the high-capacity mode allows it. DELETE
 * revokes token and keys at once (so does deactivating the device through the management API).
 */
export function tillCredentialPanelRoutes(app: FastifyInstance, deps: TillCredentialPanelDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const shopAccount = async (): Promise<Account> => {
    const keys = await deps.serverKeys();
    const anyKey = keys?.test ?? keys?.live;
    const account = anyKey ? deps.accounts.findActiveKey(anyKey)?.account : undefined;
    if (!account) throw tillKeyMissing('El servidor no tiene cuenta asociada');
    return account;
  };
  api.post(
    '/panel/v1/cajas',
    {
      schema: {
        tags: ['cajas'],
        summary: 'Dar de alta una caja del servidor de tienda: su token y sus claves propias (se muestran una sola vez), ligados a su idMaquina',
        body: z.strictObject({ etiqueta: z.string().min(1).max(120), idMaquina: idMaquinaSchema.optional(), nifEmisor: z.string().optional() }),
        response: {
          201: z.object({
            idCredencial: z.string(),
            idMaquina: z.string(),
            etiqueta: z.string(),
            nifEmisor: z.string(),
            token: z.string(),
            claves: z.object({ test: z.string(), live: z.string() }),
            dispositivo: z.object({ test: z.string(), live: z.string() }),
            engineJson: z.record(z.string(), z.string()),
            nota: z.string(),
          }),
        },
      },
    },
    async (request, reply) => {
      const account = await shopAccount();
      const nifEmisor = normalizeNif(request.body.nifEmisor ?? account.nif);
      const issued = issueTillCredential(deps, account, { nifEmisor, etiqueta: request.body.etiqueta, idMaquina: request.body.idMaquina });
      const { idMaquina, etiqueta } = issued;
      return reply.code(201).send({
        idCredencial: issued.idCredencial,
        idMaquina,
        etiqueta,
        nifEmisor,
        token: issued.token,
        claves: issued.claves,
        dispositivo: issued.dispositivo,
        engineJson: { ...deps.engineJsonBase(), idMaquina, tillToken: issued.token, nifEmisor },
        nota: 'Se muestran una sola vez: el motor solo guarda su huella SHA-256. Copie engineJson a <userData>/engine.json de la caja (modo 0600).',
      });
    },
  );

  api.get(
    '/panel/v1/cajas',
    { schema: { tags: ['cajas'], summary: 'Cajas con credencial propia (activas y revocadas), sin secretos', response: { 200: z.object({ cajas: z.array(cajaSchema) }) } } },
    async () => {
      const account = await shopAccount();
      return {
        cajas: deps.credentials
          .list(account.id)
          .map((row) => ({ idCredencial: row.id, idMaquina: row.idMaquina, etiqueta: row.etiqueta, nifEmisor: row.nifEmisor, creadoEn: row.creadoEn, revocadoEn: row.revocadoEn })),
      };
    },
  );

  api.delete(
    '/panel/v1/cajas/:idMaquina',
    { schema: { tags: ['cajas'], summary: 'Revocar la credencial de una caja (token y claves) al instante', params: z.object({ idMaquina: z.string() }), response: { 200: z.object({ idMaquina: z.string(), revocada: z.literal(true) }) } } },
    async (request) => {
      const account = await shopAccount();
      if (!deps.credentials.revokeMachine(account.id, request.params.idMaquina)) throw notFound('Esa caja no tiene credencial activa');
      return { idMaquina: request.params.idMaquina, revocada: true as const };
    },
  );
}
