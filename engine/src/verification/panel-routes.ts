import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { verificacionCadenasSchema, verificarCadenasQuerySchema } from '../../../src-shared/api/verificacion';
import type { Database } from '../db/database';
import type { Clock } from '../platform/clock';
import { verificarCadenasEn } from './verificar';

/** "Verificar cadenas" of the sync view: every chain recomputed from the stored XML. */
export function verificationPanelRoutes(app: FastifyInstance, deps: { db: Database; clock: Clock }): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/panel/v1/sync/verificar-cadenas',
    {
      schema: {
        tags: ['sync'],
        summary: 'Verifica cada cadena de registros desde el XML guardado',
        querystring: verificarCadenasQuerySchema,
        response: { 200: verificacionCadenasSchema },
      },
    },
    // Synchronous on purpose: both databases' reads block anyway, and support staff run it rarely.
    async (request) => verificarCadenasEn(deps.db, request.query, deps.clock.now()),
  );
}
