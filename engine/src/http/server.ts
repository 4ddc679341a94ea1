import fastifySwagger from '@fastify/swagger';
import {
  hasZodFastifySchemaValidationErrors,
  isResponseSerializationError,
  serializerCompiler,
  validatorCompiler,
} from '@fastify/type-provider-zod';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { EngineError, GatewayForbidden } from './errors';
import { openApiTransform } from './openapi';
import { problemsFromValidation } from './validation-errors';

export interface ApiOptions {
  title: string;
  description: string;
  ids: IdGenerator;
  logger: Logger;
  /** Host names this API answers to, besides `localhost`/`127.0.0.1` on its own port (DNS rebinding). */
  allowedHosts: () => readonly string[];
  bodyLimit?: number;
}

export interface RouteEntry {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    routeTable: RouteEntry[];
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Builds a Fastify instance that is not listening: zod validation of requests and responses,
 * OpenAPI 3.1 at /openapi.json, Host check, `x-request-id` on every answer, the flat error body.
 */
export async function buildApiServer(options: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : options.ids.next('req');
    },
    // Keep-alive friendly; the POS talks to us over loopback.
    keepAliveTimeout: 65_000,
    routerOptions: { maxParamLength: 512 },
  });
  // Every route, in OpenAPI path syntax: tests check each one is documented.
  const routeTable: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routeTable.push({ method, url: route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
    }
  });
  app.decorate('routeTable', routeTable);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: '1.0.0' },
      components: {
        securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      },
      security: [{ apiKey: [] }],
    },
    transform: openApiTransform,
  });

  app.addHook('onRequest', async (request) => {
    if (!hostAllowed(request.headers.host, options.allowedHosts())) {
      throw new EngineError(421, 'HOST_NOT_ALLOWED', 'Host no permitido');
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    // No CORS, ever: browsers on other origins must not read our answers.
    reply.removeHeader('access-control-allow-origin');
    return payload;
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    sendError(error, request, reply, options.logger),
  );

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  return app;
}

export function hostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (!header) return false;
  const host = header.toLowerCase();
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return allowed.includes(host) || allowed.includes(name ?? '');
}

function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, logger: Logger) {
  if (error instanceof GatewayForbidden) return reply.code(403).send({ message: 'Forbidden' });
  if (error instanceof EngineError) {
    reply.headers(error.headers);
    return reply.code(error.httpStatus).send(error.body());
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const problems = problemsFromValidation(error.validation ?? []);
    const first = problems[0] ?? { campo: 'body', message: 'inválido' };
    return reply.code(400).send({
      code: 'VALIDATION_ERROR',
      message: `${first.campo}: ${first.message}`,
      campo: first.campo,
      errors: problems.map((p) => `${p.campo}: ${p.message}`),
    });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply.code(413).send({ code: 'PAYLOAD_TOO_LARGE', message: 'Cuerpo demasiado grande' });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply
        .code(415)
        .send({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type debe ser application/json' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply.code(400).send({
        code: 'VALIDATION_ERROR',
        message: 'El cuerpo no es JSON válido',
        campo: 'body',
        errors: ['body: JSON no válido'],
      });
    default:
      break;
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode).send({ code: error.code ?? 'BAD_REQUEST', message: error.message });
  }
  const isDb = error.name === 'SqliteError';
  logger.error(isResponseSerializationError(error) ? 'response failed its schema' : 'unhandled error', {
    requestId: request.id,
    url: request.url,
    error: error.message,
    stack: error.stack,
  });
  return reply.code(500).send(
    isDb
      ? { code: 'DATABASE_ERROR', message: 'Error de base de datos; reintente' }
      : { code: 'INTERNAL_ERROR', message: 'Error interno' },
  );
}
