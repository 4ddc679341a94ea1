import type { SwaggerTransform } from '@fastify/swagger';
import { jsonSchemaTransform } from '@fastify/type-provider-zod';
import { MARCA_OBLIGATORIO } from '../../../src-shared/api/common';

/**
 * Route-schema key for answers that are not JSON (PNG, XML): their OpenAPI `responses` as is.
 * Kept out of `response`, which the zod serializer compiles and would refuse.
 */
export const RESPUESTAS_DOC = 'x-respuestas-doc';

type Json = Record<string, unknown>;

declare module 'fastify' {
  interface FastifySchema {
    /** OpenAPI responses of a route whose answer is not JSON; documentation only. */
    'x-respuestas-doc'?: Record<string, { description: string; content: Record<string, { schema: Json }> }>;
  }
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * zod → JSON Schema (jsonSchemaTransform), then two touches the zod schemas cannot express:
 * query parameters marked `obligatorio` become `required` (zod keeps them optional so the
 * handlers answer the spec's own errors), and `RESPUESTAS_DOC` becomes the documented responses.
 */
export const openApiTransform: SwaggerTransform = (document) => {
  const out = jsonSchemaTransform(document as Parameters<typeof jsonSchemaTransform>[0]);
  const schema = out.schema as Json;
  const query = schema.querystring;
  if (isObject(query) && isObject(query.properties)) {
    const required = new Set(Array.isArray(query.required) ? (query.required as string[]) : []);
    const properties: Json = {};
    for (const [name, prop] of Object.entries(query.properties)) {
      if (isObject(prop) && prop[MARCA_OBLIGATORIO] === true) {
        const { [MARCA_OBLIGATORIO]: _marca, ...rest } = prop;
        properties[name] = rest;
        required.add(name);
      } else {
        properties[name] = prop;
      }
    }
    schema.querystring = { ...query, properties, ...(required.size > 0 ? { required: [...required] } : {}) };
  }
  const respuestas = schema[RESPUESTAS_DOC];
  if (respuestas !== undefined) {
    delete schema[RESPUESTAS_DOC];
    schema.response = respuestas;
  }
  return out;
};
