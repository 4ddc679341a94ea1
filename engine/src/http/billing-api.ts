import type { FastifyInstance } from 'fastify';
import { accountRoutes } from '../account/routes';
import type { EngineContext } from '../context';
import { invoiceReadRoutes } from '../invoices/routes';
import { bloqueoDeFactura } from '../submission/blocked';
import { SyncViewStore } from '../submission/sync-view-store';
import { ticketbaiRoutes } from '../regimes/ticketbai/routes';
import { verifactuRoutes } from '../regimes/verifactu/routes';
import { buildKeyedApi } from './keyed-api';
import { liveEmulatorNoticeHook } from './live-emulator-notice';
import { tillBindingHook } from './till-binding';

/** The billing API (`{base_url}`): issuing, reads and /v1/cuenta. */
export async function buildBillingApi(ctx: EngineContext): Promise<FastifyInstance> {
  const app = await buildKeyedApi(ctx, {
    title: 'Billing API',
    description: 'Emisión VeriFactu/TicketBAI y lecturas de facturas y registros',
    api: 'billing',
  });
  tillBindingHook(app, { credentials: ctx.tillCredentials, relaySecret: ctx.relaySecret });
  if (ctx.config.liveToEmulator) liveEmulatorNoticeHook(app);
  accountRoutes(app, { usage: ctx.usage, clock: ctx.config.clock });
  verifactuRoutes(app, ctx.verifactu);
  ticketbaiRoutes(app, ctx.ticketbai);
  const queueBlocks = new SyncViewStore(ctx.db);
  invoiceReadRoutes(app, {
    invoices: ctx.invoices,
    issuers: ctx.issuers,
    cursors: ctx.cursors,
    clock: ctx.config.clock,
    billingUrl: () => ctx.urls.billing,
    bloqueoDeFactura: (invoiceId) => bloqueoDeFactura(queueBlocks, invoiceId),
  });
  return app;
}
