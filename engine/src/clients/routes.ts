import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  clienteCrearBodySchema,
  clienteEnvelopeSchema,
  clienteEstadoBodySchema,
  clienteEstadoResponseSchema,
  clientePatchBodySchema,
  clienteQuerySchema,
  clientesListQuerySchema,
  clientesListResponseSchema,
} from '../../../src-shared/api/clientes';
import { callerOf } from '../core/caller';
import type { ClientService } from './service';

const nifParam = z.object({ nif: z.string() });

/** Issuer clients on the management API (spec: Issuer clients). Deletion and restoration are in the panel. */
export function clientRoutes(app: FastifyInstance, deps: { clients: ClientService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { clients } = deps;

  api.get(
    '/v1/clientes',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Lista paginada de clientes emisores y plazas del plan',
        querystring: clientesListQuerySchema,
        response: { 200: clientesListResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      return clients.list(caller, request.query);
    },
  );

  api.post(
    '/v1/clientes/crear',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Crear un cliente emisor (también la propia empresa)',
        body: clienteCrearBodySchema,
        response: { 200: clienteEnvelopeSchema, 201: clienteEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { status, record } = await clients.create(caller, request.body);
      return reply.code(status).send({ cliente: clients.detalle(record, caller.account), entorno: caller.entorno });
    },
  );

  api.get(
    '/v1/clientes/:nif',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Detalle de un cliente emisor (incluirEliminados=true para uno eliminado hace menos de 30 días)',
        params: nifParam,
        querystring: clienteQuerySchema,
        response: { 200: clienteEnvelopeSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const record = clients.find(caller, request.params.nif, { incluirEliminados: request.query.incluirEliminados === 'true' });
      return { cliente: clients.detalle(record, caller.account), entorno: caller.entorno };
    },
  );

  api.patch(
    '/v1/clientes/:nif',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Modificar nombre, dirección, representante, epígrafe IAE o acceso al portal',
        params: nifParam,
        body: clientePatchBodySchema,
        response: { 200: clienteEnvelopeSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const record = await clients.patch(caller, request.params.nif, request.body);
      return { cliente: clients.detalle(record, caller.account), entorno: caller.entorno };
    },
  );

  api.patch(
    '/v1/clientes/:nif/estado',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Activar o desactivar un cliente emisor',
        params: nifParam,
        body: clienteEstadoBodySchema,
        response: { 200: clienteEstadoResponseSchema },
      },
    },
    async (request) => clients.setEstado(callerOf(request), request.params.nif, request.body.estado),
  );
}
