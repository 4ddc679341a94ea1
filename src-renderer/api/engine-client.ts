// The renderer's only way to the engine: HTTP to the panel origin it was served from. Panel routes
// directly; the billing and management APIs through the panel's same-origin relay
// (/panel/v1/api/{billing|manage}/…, engine/src/http/panel-relay.ts), which adds the till's key.
// Every answer is parsed with the shared zod schema of its route.
import type { z } from 'zod';
import { errorBodySchema, type Entorno, type ErrorBody } from '../../src-shared/api/common';
import { translate, type MessageKey } from '../i18n';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get code(): string | undefined {
    return this.body?.code;
  }
}

export interface EngineClientOptions {
  token: string;
  /** The environment whose key the relay uses (`x-till-entorno`). */
  entorno: () => Entorno;
  /** Origin of the panel API; '' = the page's own origin. */
  base?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
  /** The till's language for the client's own messages (Spanish when not given). */
  t?: (key: MessageKey, vars: Record<string, string>) => string;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Api {
  get<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>>;
  post<S extends z.ZodType>(path: string, body: unknown, schema: S): Promise<z.infer<S>>;
  put<S extends z.ZodType>(path: string, body: unknown, schema: S): Promise<z.infer<S>>;
  delete<S extends z.ZodType>(path: string, schema: S): Promise<z.infer<S>>;
}

export interface EngineClient {
  panel: Api;
  billing: Api;
  manage: Api;
  /** A panel document as text (the engine log for support). */
  panelText(path: string): Promise<string>;
}

export function createEngineClient(options: EngineClientOptions): EngineClient {
  const base = options.base ?? '';
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 20_000;
  const t = options.t ?? ((key: MessageKey, vars: Record<string, string>) => translate('es', key, vars));

  async function call<S extends z.ZodType>(prefix: string, method: Method, path: string, body: unknown, schema: S): Promise<z.infer<S>> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      accept: 'application/json',
      'x-till-entorno': options.entorno(),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(`${base}${prefix}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new ApiError(0, undefined, t('error.sinConexion', { detalle: error instanceof Error ? error.message : String(error) }));
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (!res.ok) {
      const parsed = errorBodySchema.safeParse(json);
      const retry = Number(res.headers.get('retry-after'));
      const message = parsed.success ? parsed.data.message : typeof json === 'object' && json && 'message' in json ? String(json.message) : `HTTP ${res.status}`;
      throw new ApiError(res.status, parsed.success ? parsed.data : undefined, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ApiError(res.status, undefined, t('error.respuestaInesperada', { ruta: path, detalle: parsed.error.issues[0]?.message ?? '' }));
    }
    return parsed.data;
  }

  const api = (prefix: string): Api => ({
    get: (path, schema) => call(prefix, 'GET', path, undefined, schema),
    post: (path, body, schema) => call(prefix, 'POST', path, body, schema),
    put: (path, body, schema) => call(prefix, 'PUT', path, body, schema),
    delete: (path, schema) => call(prefix, 'DELETE', path, undefined, schema),
  });
  const panelText = async (path: string): Promise<string> => {
    const res = await doFetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${options.token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new ApiError(res.status, undefined, `HTTP ${res.status}`);
    return res.text();
  };
  return { panel: api(''), billing: api('/panel/v1/api/billing'), manage: api('/panel/v1/api/manage'), panelText };
}

/** Human message of any error thrown by the client (code first when the engine sent one). */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const campo = error.body?.campo ? ` (${error.body.campo})` : '';
    return error.body?.code ? `${error.body.code}: ${error.message}${campo}` : error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
