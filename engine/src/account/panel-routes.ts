import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { entornoSchema } from '../../../src-shared/api/common';
import { notFound, tillKeyMissing } from '../core/errors';
import type { AccountStore } from './store';

const LOG_TAIL_BYTES = 2 * 1024 * 1024;

export interface AccountPanelDeps {
  accounts: AccountStore;
  dataDir: string;
  /** The till's own keys (the data dir's keys file): they say which account this till serves. */
  tillKeys: () => Promise<{ test?: string | undefined; live?: string | undefined } | undefined>;
}

/** Support from the till: a new API key for POS software (shown once) and the engine's log. */
export function accountPanelRoutes(app: FastifyInstance, deps: AccountPanelDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/panel/v1/claves',
    {
      schema: {
        tags: ['soporte'],
        summary: 'Crear una clave de API para el software del TPV (se muestra una sola vez)',
        body: z.strictObject({ entorno: entornoSchema }),
        response: { 201: z.object({ entorno: entornoSchema, clave: z.string(), idClave: z.string(), nota: z.string() }) },
      },
    },
    async (request, reply) => {
      const keys = await deps.tillKeys();
      const anyKey = keys?.test ?? keys?.live;
      const account = anyKey ? deps.accounts.findActiveKey(anyKey)?.account : undefined;
      if (!account) throw tillKeyMissing('La caja no tiene cuenta asociada');
      const created = deps.accounts.createKey(account.id, request.body.entorno);
      return reply.code(201).send({
        entorno: request.body.entorno,
        clave: created.rawKey,
        idClave: created.id,
        nota: 'Se muestra una sola vez: el motor solo guarda su huella SHA-256.',
      });
    },
  );

  app.get('/panel/v1/registro', { schema: { tags: ['soporte'], summary: 'Descargar el registro (log) del motor, últimos 2 MiB' } }, async (_request, reply) => {
    const file = path.join(deps.dataDir, 'logs', 'engine.log');
    const size = await stat(file).then((s) => s.size).catch(() => -1);
    if (size < 0) throw notFound('Todavía no hay registro');
    const start = Math.max(0, size - LOG_TAIL_BYTES);
    const handle = await open(file, 'r');
    try {
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      return reply
        .type('text/plain; charset=utf-8')
        .header('content-disposition', 'attachment; filename="engine.log"')
        .send(buffer);
    } finally {
      await handle.close();
    }
  });
}
