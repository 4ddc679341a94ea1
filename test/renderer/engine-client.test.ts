import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { cuentaResponseSchema } from '../../src-shared/api/cuenta';
import { ApiError, createEngineClient, describeError } from '../../src-renderer/api/engine-client';

function fakeFetch(status: number, body: unknown, headers: Record<string, string> = {}) {
  return vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }));
}

const cuenta = { entorno: 'test', plan: 'empresa', estadoCuenta: 'activa', facturacionActiva: true, nifClientePrincipal: 'B12345674', consultadoEn: '2026-11-22T10:00:00.000Z' };

describe('Engine client: the renderer’s only way to the engine', () => {
  it('billing calls go through the panel’s same-origin relay with the token and the environment, never an API key', async () => {
    const fetch = fakeFetch(200, cuenta);
    let entorno: 'test' | 'live' = 'live';
    const client = createEngineClient({ token: 'tok', entorno: () => entorno, fetch });
    expect(await client.billing.get('/v1/cuenta', cuentaResponseSchema)).toEqual(cuenta);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('/panel/v1/api/billing/v1/cuenta');
    expect(init?.headers).toEqual({ authorization: 'Bearer tok', accept: 'application/json', 'x-till-entorno': 'live' });
    entorno = 'test';
    await client.manage.post('/v1/x', { a: 1 }, z.unknown());
    const [url2, init2] = fetch.mock.calls[1]!;
    expect(url2).toBe('/panel/v1/api/manage/v1/x');
    expect(init2?.method).toBe('POST');
    expect(init2?.body).toBe('{"a":1}');
    expect((init2?.headers as Record<string, string>)['x-till-entorno']).toBe('test');
  });

  it('panel calls go straight to /panel/v1', async () => {
    const fetch = fakeFetch(200, { ok: true });
    await createEngineClient({ token: 't', entorno: () => 'test', fetch }).panel.get('/panel/v1/sync', z.object({ ok: z.boolean() }));
    expect(fetch.mock.calls[0]![0]).toBe('/panel/v1/sync');
  });

  it('an error answer becomes an ApiError with the engine’s code, field and Retry-After', async () => {
    const fetch = fakeFetch(429, { code: 'RATE_LIMITED', message: 'Demasiadas peticiones por segundo' }, { 'retry-after': '1' });
    const error = await createEngineClient({ token: 't', entorno: () => 'test', fetch })
      .billing.get('/v1/cuenta', cuentaResponseSchema)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).code).toBe('RATE_LIMITED');
    expect((error as ApiError).retryAfterSeconds).toBe(1);
    const v = await createEngineClient({ token: 't', entorno: () => 'test', fetch: fakeFetch(400, { code: 'VALIDATION_ERROR', message: 'numero: Required', campo: 'cabecera.numero' }) })
      .billing.post('/v1/verifactu/crear', {}, z.unknown())
      .catch((e: unknown) => e);
    expect(describeError(v)).toBe('VALIDATION_ERROR: numero: Required (cabecera.numero)');
  });

  it('an answer that does not match its shared schema is an error, not silently used', async () => {
    const error = await createEngineClient({ token: 't', entorno: () => 'test', fetch: fakeFetch(200, { entorno: 'prod' }) })
      .billing.get('/v1/cuenta', cuentaResponseSchema)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/Respuesta inesperada/);
  });

  it('a network failure is an ApiError with status 0', async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError('fetch failed');
    });
    const error = await createEngineClient({ token: 't', entorno: () => 'test', fetch }).panel.get('/panel/v1/sync', z.unknown()).catch((e: unknown) => e);
    expect((error as ApiError).status).toBe(0);
  });
});
