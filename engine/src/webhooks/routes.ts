import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import {
  idWebhookParams,
  webhookClienteParams,
  webhookClientesBody,
  webhookClientesResponse,
  webhookCreateBody,
  webhookDeleteResponse,
  webhookPatchBody,
  webhookResponse,
  webhooksListResponse,
} from '../../../src-shared/api/webhooks';
import { callerOf } from '../core/caller';
import type { WebhookService } from './service';
import type { WebhookScope } from './store.sqlite';

function scopeOf(request: FastifyRequest): WebhookScope {
  const caller = callerOf(request);
  return { accountId: caller.account.id, entorno: caller.entorno };
}

/** The spec's Webhooks endpoints (management API), with the shapes of API-CONTRACT. */
export function webhookRoutes(app: FastifyInstance, webhooks: WebhookService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['webhooks'];

  api.get(
    '/v1/webhooks',
    { schema: { tags, summary: 'Listar webhooks', response: { 200: webhooksListResponse } } },
    async (request) => ({ webhooks: webhooks.list(scopeOf(request)) }),
  );

  api.post(
    '/v1/webhooks',
    {
      schema: {
        tags,
        summary: 'Crear un webhook (eventos omitido = todos); después vincule emisores',
        body: webhookCreateBody,
        response: { 201: webhookResponse },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      await webhooks.checkUrl(request.body.url);
      const webhook = webhooks.create(scope, request.body);
      return reply.code(201).send({ webhook, entorno: scope.entorno });
    },
  );

  api.get(
    '/v1/webhooks/:idWebhook',
    { schema: { tags, summary: 'Detalle de un webhook', params: idWebhookParams, response: { 200: webhookResponse } } },
    async (request) => {
      const scope = scopeOf(request);
      return { webhook: webhooks.get(scope, request.params.idWebhook), entorno: scope.entorno };
    },
  );

  api.patch(
    '/v1/webhooks/:idWebhook',
    {
      schema: {
        tags,
        summary: 'Cambiar url, nombre, secreto, eventos (null = todos), estado o prefijoCabeceras',
        params: idWebhookParams,
        body: webhookPatchBody,
        response: { 200: webhookResponse },
      },
    },
    async (request) => {
      const scope = scopeOf(request);
      await webhooks.checkUrl(request.body.url);
      return { webhook: webhooks.patch(scope, request.params.idWebhook, request.body), entorno: scope.entorno };
    },
  );

  api.delete(
    '/v1/webhooks/:idWebhook',
    { schema: { tags, summary: 'Eliminar un webhook', params: idWebhookParams, response: { 200: webhookDeleteResponse } } },
    async (request) => {
      webhooks.remove(scopeOf(request), request.params.idWebhook);
      return { idWebhook: request.params.idWebhook, eliminado: true as const };
    },
  );

  api.get(
    '/v1/webhooks/:idWebhook/clientes',
    {
      schema: { tags, summary: 'Emisores vinculados', params: idWebhookParams, response: { 200: webhookClientesResponse } },
    },
    async (request) => ({
      idWebhook: request.params.idWebhook,
      clientes: webhooks.clientes(scopeOf(request), request.params.idWebhook),
    }),
  );

  api.post(
    '/v1/webhooks/:idWebhook/clientes',
    {
      schema: {
        tags,
        summary: 'Vincular emisores de la cuenta (todos o ninguno)',
        params: idWebhookParams,
        body: webhookClientesBody,
        response: { 200: webhookClientesResponse },
      },
    },
    async (request) => ({
      idWebhook: request.params.idWebhook,
      clientes: webhooks.link(scopeOf(request), request.params.idWebhook, request.body.clientes),
    }),
  );

  api.delete(
    '/v1/webhooks/:idWebhook/clientes/:nif',
    {
      schema: {
        tags,
        summary: 'Desvincular un emisor',
        params: webhookClienteParams,
        response: { 200: webhookClientesResponse },
      },
    },
    async (request) => ({
      idWebhook: request.params.idWebhook,
      clientes: webhooks.unlink(scopeOf(request), request.params.idWebhook, request.params.nif),
    }),
  );
}
