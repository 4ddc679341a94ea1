// A fake engine behind the real engine client: routes answer from handlers, every call is recorded.
import { createEngineClient, type EngineClient } from '../../../src-renderer/api/engine-client';

export interface Call {
  method: string;
  /** Path with query, as the client sent it (panel relay prefix included). */
  url: string;
  body: unknown;
}

export type Handler = (call: Call) => { status: number; body: unknown } | undefined;

export function fakeEngine(handler: Handler): { client: EngineClient; calls: Call[] } {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const call: Call = { method: init?.method ?? 'GET', url: String(input), body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined };
    calls.push(call);
    const answer = handler(call) ?? { status: 404, body: { code: 'NOT_FOUND', message: 'Ruta no encontrada' } };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  };
  return { client: createEngineClient({ token: 'tok', entorno: () => 'test', fetch }), calls };
}

export const ok = (body: unknown) => ({ status: 200, body });
