import type { FastifyInstance } from 'fastify';
import { censusRoutes } from '../census/routes';
import { clientRoutes } from '../clients/routes';
import { complianceRoutes } from '../compliance/routes';
import type { EngineContext } from '../context';
import { deviceRoutes } from '../devices/routes';
import { representationRoutes } from '../representation/routes';
import { eventosRoutes } from '../no-verifactu/routes';
import { webhookRoutes } from '../webhooks/routes';
import { buildKeyedApi } from './keyed-api';
import { tillManageGuard } from './till-binding';

/** The management API (`{manage_url}`): clients, webhooks, devices, NIF checks, compliance. */
export async function buildManageApi(ctx: EngineContext): Promise<FastifyInstance> {
  const app = await buildKeyedApi(ctx, {
    title: 'Management API',
    description: 'Clientes emisores, webhooks, dispositivos, validación de NIF y cumplimiento',
    api: 'manage',
  });
  tillManageGuard(app, { credentials: ctx.tillCredentials, relaySecret: ctx.relaySecret });
  complianceRoutes(app, { declarations: ctx.declarations, publicBaseUrl: () => ctx.urls.manage });
  webhookRoutes(app, ctx.webhooks);
  // POST /v1/nif/validar, the /v1/clientes endpoints and representation.
  censusRoutes(app, { census: ctx.census });
  clientRoutes(app, { clients: ctx.clients });
  representationRoutes(app, { representation: ctx.representation });
  deviceRoutes(app, { devices: ctx.devices });
  eventosRoutes(app, { issuers: ctx.issuers, noVerifactu: ctx.noVerifactu, cursors: ctx.cursors, clock: ctx.config.clock });
  return app;
}
