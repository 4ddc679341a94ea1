import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { cuentaResponseSchema } from '../../../src-shared/api/cuenta';
import { callerOf } from '../core/caller';
import type { Clock } from '../platform/clock';
import type { UsageMeter } from './usage';

/** GET /v1/cuenta: key, environment and billing status (billing API). */
export function accountRoutes(app: FastifyInstance, deps: { usage: UsageMeter; clock: Clock }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/cuenta',
    {
      schema: {
        tags: ['cuenta'],
        summary: 'Comprobar clave, entorno y estado de facturación',
        response: { 200: cuentaResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { account } = caller;
      const consumo = deps.usage.consumo(caller.keyId, caller.limits);
      return {
        entorno: caller.entorno,
        plan: account.plan,
        estadoCuenta: account.estadoCuenta,
        facturacionActiva: account.facturacionActiva === 1,
        nifClientePrincipal: account.nif,
        ...(consumo ? { consumo } : {}),
        consultadoEn: deps.clock.now().toISOString(),
      };
    },
  );
}
