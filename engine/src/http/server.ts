import fastifySwagger from '@fastify/swagger';
import {
  hasZodFastifySchemaValidationErrors,
  isResponseSerializationError,
  serializerCompiler,
  validatorCompiler,
} from '@fastify/type-provider-zod';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { ErrorBody } from '../../../src-shared/api/common';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { EngineError, GatewayForbidden, validation } from '../core/errors';
import { isDatabaseError, storageFailureOf } from '../db/errors';
import { WalSyncError } from '../db/wal-sync';
import { openApiTransform } from './openapi';
import { problemsFromValidation } from './validation-errors';

export interface ApiOptions {
  title: string;
  description: string;
  ids: IdGenerator;
  logger: Logger;
  /**
   * Host names this API answers to, besides `localhost`/`127.0.0.1` on its own port (DNS
   * rebinding). Verdicts are remembered while it answers the same array: return a new one when the
   * names change (hostNamesOf in keyed-api.ts does).
   */
  allowedHosts: () => readonly string[];
  /**
   * The API's own admission (API key, panel token): runs in the same onRequest hook, right after
   * the Host check, before any body is read; throws to refuse. One synchronous hook per request
   * instead of one async hook per check.
   */
  gate?: (request: FastifyRequest) => void;
  /** Told first on every request, before the gate (Database.requestArrived: the read caches look afresh). */
  requestArrived?: () => void;
  bodyLimit?: number;
  /** Certificate and key: the API answers HTTPS only (core/tls.ts). */
  tls?: { cert: string; key: string } | undefined;
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
/** Far more than any request of the contract nests (about 5 levels). */
const MAX_JSON_DEPTH = 64;

/** Deepest nesting of arrays/objects in a JSON text (strings skipped); linear, no recursion. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) {
      depth--;
    }
  }
  return max;
}

/**
 * Builds a Fastify instance that is not listening: zod validation of requests and responses,
 * OpenAPI 3.1 at /openapi.json, Host check, `x-request-id` on every answer, the flat error body.
 */
export async function buildApiServer(options: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // Beyond loopback the API answers HTTPS only (TLS 1.2 or later); the type stays the plain one.
    ...((options.tls ? { https: { cert: options.tls.cert, key: options.tls.key, minVersion: 'TLSv1.2' } } : {}) as object),
    logger: false,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : options.ids.next('req');
    },
    // Keep-alive friendly; the POS talks to us over loopback.
    keepAliveTimeout: 65_000,
    routerOptions: { maxParamLength: 512 },
    // Errors the router raises before any hook (malformed percent-encoding, an over-long path
    // parameter) get the API's error body too, never Fastify's default shape echoing the URL.
    // Malformed HTTP (bad header bytes, oversized headers) never reaches the router.
    clientErrorHandler: (error: Error & { code?: string }, socket) => {
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
      const body = JSON.stringify(status === 431 ? { code: 'HEADERS_TOO_LARGE', message: 'Cabeceras demasiado grandes' } : fastifyClientErrorBody(400));
      if (socket.writable) {
        socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
      } else {
        socket.destroy(error);
      }
    },
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void reply.code(frameworkErrorStatus(error.code)).send(frameworkErrorBody(error.code));
    },
  });
  // Every route, in OpenAPI path syntax: tests check each one is documented.
  const routeTable: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      routeTable.push({ method, url: route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
    }
  });
  app.decorate('routeTable', routeTable);
  // JSON bodies: Fastify's own parser (prototype poisoning refused), after a nesting limit. A
  // document nested thousands deep parses, but then overflows the stack of whatever recurses
  // over it (validation, re-serialisation in the panel relay): refuse it up front.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (jsonDepth(text) > MAX_JSON_DEPTH) {
      done(validation('body', `El cuerpo anida más de ${MAX_JSON_DEPTH} niveles`, [`body: more than ${MAX_JSON_DEPTH} nested levels`]), undefined);
      return;
    }
    parseJson(request, text, done);
  });
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

  const hosts = new HostGuard(options.allowedHosts);
  const gate = options.gate;
  const requestArrived = options.requestArrived;
  app.addHook('onRequest', (request, _reply, done) => {
    requestArrived?.();
    if (!hosts.allows(request.headers.host, request.raw.socket.localPort)) {
      done(new EngineError(421, 'HOST_NOT_ALLOWED', 'Host no permitido'));
      return;
    }
    if (gate) {
      try {
        gate(request);
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    // No CORS, ever: browsers on other origins must not read our answers.
    reply.removeHeader('access-control-allow-origin');
    done(null, payload);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
    sendError(error, request, reply, options.logger),
  );

  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  return app;
}

/**
 * hostAllowed's verdicts by (port, Host header), for as long as the allowed names are the same
 * array: every request of a till carries the same Host. Bounded: a flood of made-up Host values
 * only empties it.
 */
export class HostGuard {
  private names: readonly string[] | undefined;
  private readonly verdicts = new Map<string, boolean>();

  constructor(private readonly allowedHosts: () => readonly string[]) {}

  allows(header: string | undefined, localPort: number | undefined): boolean {
    if (!header) return false;
    const names = this.allowedHosts();
    if (names !== this.names) {
      this.names = names;
      this.verdicts.clear();
    }
    // The port never contains '|': the key is unambiguous.
    const key = `${localPort ?? ''}|${header}`;
    let verdict = this.verdicts.get(key);
    if (verdict === undefined) {
      verdict = hostAllowed(header, names, localPort);
      if (this.verdicts.size >= 256) this.verdicts.clear();
      this.verdicts.set(key, verdict);
    }
    return verdict;
  }
}

/**
 * DNS rebinding guard: the Host header (case-insensitive) must name this machine — a loopback name,
 * or a LAN entry `name:port` of allowedHostNames — and the port the connection came in on (a
 * browser always sends the port unless it is 80). `localPort` is undefined only for in-process
 * requests (`inject`, the panel relay), which no browser can send: the name decides.
 */
export function hostAllowed(header: string | undefined, allowed: readonly string[], localPort: number | undefined): boolean {
  if (!header) return false;
  const host = header.toLowerCase();
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1;
  const name = bracket >= 0 ? host.slice(0, bracket + 1) : (host.split(':')[0] ?? '');
  const rest = host.slice(name.length);
  if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return false;
  if (!allowed.includes(name) && !allowed.includes(host)) return false;
  if (localPort === undefined) return true;
  const port = rest === '' ? 80 : Number(rest.slice(1));
  return port === localPort;
}

function fastifyClientErrorBody(status: number): ErrorBody {
  switch (status) {
    case 413:
      return { code: 'PAYLOAD_TOO_LARGE', message: 'Cuerpo demasiado grande' };
    case 415:
      return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type debe ser application/json' };
    default:
      return { code: 'BAD_REQUEST', message: 'Petición no válida' };
  }
}

/** Status of the router's own errors (find-my-way), raised before any hook runs. */
function frameworkErrorStatus(code: string): number {
  return code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
}

function frameworkErrorBody(code: string): ErrorBody {
  switch (code) {
    case 'FST_ERR_BAD_URL':
      return { code: 'BAD_URL', message: 'La URL no es válida (codificación %)', campo: 'url', errors: ['url: codificación % no válida'] };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return {
        code: 'URI_TOO_LONG',
        message: 'Un parámetro de la ruta supera los 512 caracteres',
        campo: 'url',
        errors: ['url: parámetro de ruta de más de 512 caracteres'],
      };
    default:
      return { code: 'BAD_REQUEST', message: 'Petición no válida' };
  }
}

function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, logger: Logger) {
  if (error instanceof GatewayForbidden) return reply.code(403).send({ message: 'Forbidden' });
  if (error instanceof EngineError) {
    reply.headers(error.headers);
    return reply.code(error.httpStatus).send(error.body());
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const problems = problemsFromValidation(error.validation ?? [], error.validationContext ?? 'body');
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
    // Fastify's own errors (FST_ERR_*) carry English text and internal codes: answer ours.
    if (error.code?.startsWith('FST_ERR_')) return reply.code(error.statusCode).send(fastifyClientErrorBody(error.statusCode));
    return reply.code(error.statusCode).send({ code: error.code ?? 'BAD_REQUEST', message: error.message });
  }
  const isDb = isDatabaseError(error);
  const failure = storageFailureOf(error);
  if (failure === 'full') {
    // Disk (or the database's size limit) full: nothing was committed; the till retries later.
    logger.error('database full', { requestId: request.id, url: request.url });
    return reply
      .code(503)
      .header('retry-after', '30')
      .send({ code: 'STORAGE_FULL', message: 'No queda espacio para guardar en el equipo; no se ha guardado nada. Libere espacio y reintente' });
  }
  if (failure === 'busy') {
    // Another connection (the filing thread, an admin command, another node) held the write lock
    // past busy_timeout / lock_timeout, or PostgreSQL ended the transaction to break a conflict:
    // the transaction never began or was rolled back, so nothing was stored.
    logger.warn('database busy', { requestId: request.id, url: request.url, code: error.code });
    return reply
      .code(503)
      .header('retry-after', '1')
      .send({ code: 'STORAGE_BUSY', message: 'La base de datos está ocupada; no se ha guardado nada. Reintente en un momento' });
  }
  if (failure === 'unavailable') {
    // PostgreSQL's connection was lost or the server is restarting: the transaction was rolled
    // back (or, if only COMMIT's answer was lost, the same request sent again replays it). The
    // next request opens the connection again.
    logger.warn('database unavailable', { requestId: request.id, url: request.url, code: error.code, error: error.message });
    return reply
      .code(503)
      .header('retry-after', '2')
      .send({ code: 'STORAGE_UNAVAILABLE', message: 'Se ha perdido la conexión con la base de datos; reintente la misma petición en un momento' });
  }
  if (error instanceof WalSyncError) {
    // The commit may not be on disk: not acknowledged. Issuing stays refused until a restart lets
    // SQLite recover from what the disk holds (a retry then finds the invoice or issues it anew).
    logger.error('write-ahead log fsync failed', { requestId: request.id, url: request.url, error: error.message });
    return reply
      .code(503)
      .header('retry-after', '60')
      .send({ code: 'STORAGE_ERROR', message: 'El equipo no ha podido asegurar el guardado en disco; reinicie el motor y reintente' });
  }
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
