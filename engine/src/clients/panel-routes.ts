import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { clientesListResponseSchema, estadoClienteSchema } from '../../../src-shared/api/clientes';
import { entornoSchema, timestampSchema } from '../../../src-shared/api/common';
import { normalizeNif } from '../../../src-shared/nif';
import type { Account, AccountStore } from '../account/store';
import { mountEmulatorFaultRelay } from '../core/emulator-relay';
import { EngineError, notFound } from '../core/errors';
import type { ClientService } from './service';
import { RESTORATION_WINDOW_MS, type ClientRecord } from './store';

const cuentaParams = z.object({ idCuenta: z.string() });
const clienteParams = z.object({ idCuenta: z.string(), nif: z.string() });
const entornoBody = z.strictObject({ entorno: entornoSchema });

const panelClienteSchema = z.object({
  nif: z.string(),
  nombre: z.string(),
  estado: estadoClienteSchema,
  entorno: entornoSchema,
  fechaEliminacion: timestampSchema.optional(),
  /** Last moment a deleted issuer can be restored. */
  restaurableHasta: timestampSchema.optional(),
  limitePlan: z.number().int().optional(),
  clientesUsados: z.number().int().optional(),
  clientesDisponibles: z.number().int().optional(),
});

/**
 * Deleting and restoring issuers (the spec puts them "in the panel"), and the account's client
 * list for support staff. `idCuenta` is the account id or the account's own NIF.
 */
export function clientPanelRoutes(
  app: FastifyInstance,
  deps: { clients: ClientService; accounts: AccountStore; emulatorUrl: () => string | undefined },
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const accountOf = (idCuenta: string): Account => {
    const account = deps.accounts.getAccount(idCuenta) ?? deps.accounts.findAccountByNif(normalizeNif(idCuenta));
    if (!account) throw notFound('Cuenta no encontrada');
    return account;
  };
  const view = (record: ClientRecord, account: Account) => {
    const eliminadoEn = record.issuer.estado === 'eliminado' ? record.details.eliminadoEn : null;
    return {
      nif: record.issuer.nif,
      nombre: record.issuer.nombre,
      estado: record.issuer.estado,
      entorno: record.issuer.entorno,
      ...(eliminadoEn
        ? {
            fechaEliminacion: eliminadoEn,
            restaurableHasta: new Date(Date.parse(eliminadoEn) + RESTORATION_WINDOW_MS).toISOString(),
          }
        : {}),
      ...deps.clients.counters({ account, entorno: record.issuer.entorno }),
    };
  };

  api.get(
    '/panel/v1/cuentas/:idCuenta/clientes',
    {
      schema: {
        tags: ['panel'],
        summary: 'Clientes emisores de una cuenta (entorno=test|live, incluirEliminados, limite, cursor)',
        params: cuentaParams,
        querystring: z.record(z.string(), z.string().optional()),
        response: { 200: clientesListResponseSchema },
      },
    },
    async (request) => {
      const account = accountOf(request.params.idCuenta);
      const entorno = entornoSchema.safeParse(request.query.entorno ?? 'test');
      if (!entorno.success) throw new EngineError(400, 'VALIDATION_ERROR', 'entorno debe ser test o live', { campo: 'entorno' });
      return deps.clients.list({ account, entorno: entorno.data }, request.query);
    },
  );

  api.post(
    '/panel/v1/cuentas/:idCuenta/clientes/:nif/eliminar',
    {
      schema: {
        tags: ['panel'],
        summary: 'Eliminar un cliente emisor (restaurable durante 30 días)',
        params: clienteParams,
        body: entornoBody,
        response: { 200: panelClienteSchema },
      },
    },
    async (request) => {
      const account = accountOf(request.params.idCuenta);
      const record = deps.clients.delete({ account, entorno: request.body.entorno }, request.params.nif);
      return view(record, account);
    },
  );

  api.post(
    '/panel/v1/cuentas/:idCuenta/clientes/:nif/restaurar',
    {
      schema: {
        tags: ['panel'],
        summary: 'Restaurar un cliente eliminado hace menos de 30 días',
        params: clienteParams,
        body: entornoBody,
        response: { 200: panelClienteSchema },
      },
    },
    async (request) => {
      const account = accountOf(request.params.idCuenta);
      const record = deps.clients.restore({ account, entorno: request.body.entorno }, request.params.nif);
      return view(record, account);
    },
  );

  // The census emulator's fault controls, relayed so the till UI can rehearse a census outage.
  mountEmulatorFaultRelay(app, deps.emulatorUrl, '/panel/v1/emuladores/censo/faults', '/__control/census/faults');
}
