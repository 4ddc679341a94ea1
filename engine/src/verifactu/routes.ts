import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import {
  verifactuAnularBody,
  verifactuAnularResponse,
  verifactuCrearBody,
  verifactuEmisionResponse,
  verifactuSubsanarBody,
} from '../../../src-shared/api/verifactu';
import { callerOf } from '../http/auth';
import type { VerifactuIssuing } from './service';

/** POST /v1/verifactu/crear, PUT /v1/verifactu/subsanar, POST /v1/verifactu/anular. */
export function verifactuRoutes(app: FastifyInstance, issuing: VerifactuIssuing): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/v1/verifactu/crear',
    {
      schema: {
        tags: ['verifactu'],
        summary: 'Emitir una factura VeriFactu: registro encadenado, XML y QR en una transacción',
        body: verifactuCrearBody,
        response: { 200: verifactuEmisionResponse },
      },
    },
    async (request) => issuing.crear(callerOf(request), request.body),
  );
  api.put(
    '/v1/verifactu/subsanar',
    {
      schema: {
        tags: ['verifactu'],
        summary: 'Subsanar una factura (misma identidad, datos corregidos)',
        body: verifactuSubsanarBody,
        response: { 200: verifactuEmisionResponse },
      },
    },
    async (request) => issuing.subsanar(callerOf(request), request.body),
  );
  api.post(
    '/v1/verifactu/anular',
    {
      schema: {
        tags: ['verifactu'],
        summary: 'Anular una factura',
        body: verifactuAnularBody,
        response: { 200: verifactuAnularResponse },
      },
    },
    async (request) => issuing.anular(callerOf(request), request.body),
  );
}
