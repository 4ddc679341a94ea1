import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { readJsonBody, sendJson } from '../http-util';
import { CodeError } from './faults';

export interface FaultsControl<P> {
  readonly state: unknown;
  set(patch: P): unknown;
  reset(): void;
}

/**
 * A `…/faults` control route: GET the state, PUT/POST a patch (400 on a bad body
 * or a code the emulator does not answer), DELETE clears. Returns false, having
 * answered nothing, for any other method.
 */
export async function serveFaults<P>(
  req: IncomingMessage,
  res: ServerResponse,
  faults: FaultsControl<P>,
  schema: z.ZodType<P>,
): Promise<boolean> {
  const m = req.method ?? 'GET';
  if (m === 'GET') {
    sendJson(res, 200, faults.state);
  } else if (m === 'PUT' || m === 'POST') {
    const patch = await readJsonBody(req, res, schema);
    if (!patch) return true;
    try {
      sendJson(res, 200, faults.set(patch));
    } catch (e) {
      if (!(e instanceof CodeError)) throw e;
      sendJson(res, 400, { error: 'invalid_body', message: e.message });
    }
  } else if (m === 'DELETE') {
    faults.reset();
    sendJson(res, 200, faults.state);
  } else {
    return false;
  }
  return true;
}
