import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from '@fastify/type-provider-zod';
import type { $ZodType } from 'zod/v4/core';
import {
  verifactuAnularBody,
  verifactuAnularResponse,
  verifactuCrearBody,
  verifactuEmisionResponse,
  verifactuSubsanarBody,
} from '../../../../src-shared/api/verifactu';
import { crearBodyRapido } from '../../../../src-shared/api/verifactu-rapido';
import { callerOf } from '../../core/caller';
import { flatSerializerCompiler } from '../../core/response-serializer';
import type { VerifactuIssuing } from './service';

/**
 * crear's body (the issuing hot path): the precompiled check of the common body, which answers
 * exactly what the schema would; anything else, valid or not, through the zod schema, so a 400
 * and its `campo` are the schema's.
 */
function crearValidatorCompiler<S>(route: Parameters<FastifySchemaCompiler<S>>[0]): ReturnType<FastifySchemaCompiler<S>> {
  // Fastify passes each part's own schema (the body's zod schema here); the route option is typed
  // with the whole route schema, hence the cast.
  const zod = validatorCompiler(route as unknown as Parameters<FastifySchemaCompiler<$ZodType>>[0]);
  if (route.httpPart !== 'body') return zod;
  return (data: unknown) => {
    const rapido = crearBodyRapido(data);
    return rapido === undefined ? zod(data) : { value: rapido };
  };
}

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
      serializerCompiler: flatSerializerCompiler,
      validatorCompiler: crearValidatorCompiler,
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
      serializerCompiler: flatSerializerCompiler,
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
