import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import {
  idWebhookParams,
  panelEntregasQuery,
  panelEntregasResponse,
  panelWebhooksResponse,
} from '../../../src-shared/api/webhooks';
import { notFound } from '../core/errors';
import { webhookView } from './service';
import type { WebhookRow, WebhookStore } from './store.sqlite';

function panelView(store: WebhookStore, row: WebhookRow) {
  return { ...webhookView(row), entorno: row.entorno, idCuenta: row.accountId, clientes: store.linkedNifs(row.idWebhook) };
}

/**
 * Support staff's view of webhooks (panel API, panel token): every webhook of the install and,
 * per webhook, the delivery log — state, attempts with status code, latency and error. Never
 * the `secreto`, never the receiver's answer body.
 */
export function webhookPanelRoutes(app: FastifyInstance, store: WebhookStore): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/panel/v1/webhooks',
    { schema: { tags: ['panel'], summary: 'Webhooks de la instalación', response: { 200: panelWebhooksResponse } } },
    async () => ({ webhooks: store.listAll().map((row) => panelView(store, row)) }),
  );
  api.get(
    '/panel/v1/webhooks/:idWebhook/entregas',
    {
      schema: {
        tags: ['panel'],
        summary: 'Registro de entregas de un webhook (código, latencia, intento, error)',
        params: idWebhookParams,
        querystring: panelEntregasQuery,
        response: { 200: panelEntregasResponse },
      },
    },
    async (request) => {
      const row = store.byId(request.params.idWebhook);
      if (!row) throw notFound('Webhook no encontrado');
      const deliveries = store.deliveriesOf(row.idWebhook, { estado: request.query.estado, limit: request.query.limite ?? 100 });
      const attempts = new Map<string, ReturnType<WebhookStore['attemptsOf']>>();
      for (const a of store.attemptsOf(deliveries.map((d) => d.id))) {
        const list = attempts.get(a.deliveryId) ?? [];
        list.push(a);
        attempts.set(a.deliveryId, list);
      }
      return {
        webhook: panelView(store, row),
        entregas: deliveries.map((d) => ({
          idEntrega: d.id,
          evento: d.evento,
          idFactura: d.invoiceId,
          estado: d.estado,
          intentos: d.intentos,
          ...(d.siguienteIntentoEn && d.estado === 'pendiente' ? { siguienteIntentoEn: d.siguienteIntentoEn } : {}),
          ...(d.ultimoCodigo !== null ? { ultimoCodigo: d.ultimoCodigo } : {}),
          ...(d.ultimoError !== null ? { ultimoError: d.ultimoError } : {}),
          creadoEn: d.creadoEn,
          ...(d.entregadaEn ? { entregadaEn: d.entregadaEn } : {}),
          registroIntentos: (attempts.get(d.id) ?? []).map((a) => ({
            intento: a.intento,
            ...(a.statusCode !== null ? { codigoHttp: a.statusCode } : {}),
            latenciaMs: a.latencyMs,
            ...(a.error !== null ? { error: a.error } : {}),
            en: a.at,
          })),
        })),
      };
    },
  );
}
