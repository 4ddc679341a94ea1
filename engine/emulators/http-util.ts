import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';

export class BodyTooLargeError extends Error {}

export function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limitBytes) {
        reject(new BodyTooLargeError(`body exceeds ${limitBytes} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, contentType: string, text: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function readJson(req: IncomingMessage, limitBytes = 1_000_000): Promise<unknown> {
  const buf = await readBody(req, limitBytes);
  if (buf.length === 0) return {};
  return JSON.parse(buf.toString('utf8')) as unknown;
}

/** Reads a JSON body checked against `schema`; on a bad one answers 400 and returns undefined. */
export async function readJsonBody<T>(req: IncomingMessage, res: ServerResponse, schema: z.ZodType<T>): Promise<T | undefined> {
  let raw: unknown;
  try {
    raw = await readJson(req);
  } catch {
    sendJson(res, 400, { error: 'invalid_json' });
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    sendJson(res, 400, { error: 'invalid_body', issues: parsed.error.issues });
    return undefined;
  }
  return parsed.data;
}
