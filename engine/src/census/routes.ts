import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { errorBodySchema } from '../../../src-shared/api/common';
import { nifValidarBodySchema, nifValidarResponseSchema } from '../../../src-shared/api/nif';
import { EngineError } from '../core/errors';
import type { CensusService } from './service';

export const censusUnavailable = (resultados: unknown[]) =>
  new EngineError(503, 'AEAT_UNAVAILABLE', 'El censo de la AEAT no responde; reintente más tarde', { resultados });

/**
 * POST /v1/nif/validar (management API). 200 with one result per entry, in order; 503
 * AEAT_UNAVAILABLE when the census cannot be reached and some entry has no verdict (neither
 * fresh nor cached), with `resultados` for the entries that could be resolved.
 */
export function censusRoutes(app: FastifyInstance, deps: { census: CensusService }): void {
  app.withTypeProvider<ZodTypeProvider>().post(
    '/v1/nif/validar',
    {
      schema: {
        tags: ['nif'],
        summary: 'Validar NIF y nombre contra el censo (1 a 100 entradas)',
        body: nifValidarBodySchema,
        response: { 200: nifValidarResponseSchema, 400: errorBodySchema, 503: errorBodySchema },
      },
    },
    async (request) => {
      const outcome = await deps.census.validate(request.body.nifs);
      if (outcome.unavailable) throw censusUnavailable(outcome.resultados);
      return { resultados: outcome.resultados };
    },
  );
}
