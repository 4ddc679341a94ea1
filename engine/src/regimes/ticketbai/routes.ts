import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import {
  ticketbaiAnularBody,
  ticketbaiAnularResponse,
  ticketbaiCrearBody,
  ticketbaiEmisionResponse,
  ticketbaiSubsanarBody,
} from '../../../../src-shared/api/ticketbai';
import { callerOf } from '../../core/caller';
import { flatSerializerCompiler } from '../../core/response-serializer';
import type { TicketbaiIssuing } from './service';

/** POST /v1/ticketbai/crear, PUT /v1/ticketbai/subsanar, POST /v1/ticketbai/anular. */
export function ticketbaiRoutes(app: FastifyInstance, issuing: TicketbaiIssuing): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/v1/ticketbai/crear',
    {
      schema: {
        tags: ['ticketbai'],
        summary: 'Emitir una factura TicketBAI: firmada (XAdES-EPES), encadenada, con identificador y QR',
        body: ticketbaiCrearBody,
        response: { 200: ticketbaiEmisionResponse },
      },
      serializerCompiler: flatSerializerCompiler,
    },
    async (request) => issuing.crear(callerOf(request), request.body),
  );
  api.put(
    '/v1/ticketbai/subsanar',
    {
      schema: {
        tags: ['ticketbai'],
        summary: 'Subsanar una factura rechazada (Zuzendu en Gipuzkoa y Araba: conserva idTbai y QR)',
        body: ticketbaiSubsanarBody,
        response: { 200: ticketbaiEmisionResponse },
      },
      serializerCompiler: flatSerializerCompiler,
    },
    async (request) => issuing.subsanar(callerOf(request), request.body),
  );
  api.post(
    '/v1/ticketbai/anular',
    {
      schema: { tags: ['ticketbai'], summary: 'Anular una factura TicketBAI', body: ticketbaiAnularBody, response: { 200: ticketbaiAnularResponse } },
    },
    async (request) => issuing.anular(callerOf(request), request.body),
  );
}
