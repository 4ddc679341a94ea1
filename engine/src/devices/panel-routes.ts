import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { timestampSchema } from '../../../src-shared/api/common';
import { faseAltaCapacidadSchema, modoCadenaSchema } from '../../../src-shared/api/clientes';
import { normalizeNif } from '../../../src-shared/nif';
import type { Account, AccountStore } from '../account/store';
import { notFound } from '../core/errors';
import type { DeviceService } from './service';
import type { Phase } from './store';

const params = z.object({ idCuenta: z.string(), nif: z.string() });

export const panelFaseSchema = z.object({
  nif: z.string(),
  faseAltaCapacidad: faseAltaCapacidadSchema,
  modoCadena: modoCadenaSchema,
  observandoDesde: timestampSchema.optional(),
  activacionSolicitadaEn: timestampSchema.optional(),
});

function faseView(nif: string, phase: Phase): z.infer<typeof panelFaseSchema> {
  return {
    nif,
    faseAltaCapacidad: phase.faseAltaCapacidad,
    modoCadena: phase.modoCadena,
    ...(phase.observandoDesde !== null ? { observandoDesde: phase.observandoDesde } : {}),
    ...(phase.activacionSolicitadaEn !== null ? { activacionSolicitadaEn: phase.activacionSolicitadaEn } : {}),
  };
}

/**
 * The service team's side of the high-capacity mode: reading and setting an issuer's phase (one
 * value for TEST and LIVE). No client endpoint changes it (spec: Phase `faseAltaCapacidad`).
 */
export function devicePanelRoutes(app: FastifyInstance, deps: { devices: DeviceService; accounts: AccountStore }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const accountOf = (idCuenta: string): Account => {
    const account = deps.accounts.getAccount(idCuenta) ?? deps.accounts.findAccountByNif(normalizeNif(idCuenta));
    if (!account) throw notFound('Cuenta no encontrada');
    return account;
  };

  api.get(
    '/panel/v1/cuentas/:idCuenta/clientes/:nif/fase',
    { schema: { tags: ['panel'], summary: 'Fase de alta capacidad de un emisor (la misma en TEST y LIVE)', params, response: { 200: panelFaseSchema } } },
    async (request) => {
      const account = accountOf(request.params.idCuenta);
      const nif = normalizeNif(request.params.nif);
      return faseView(nif, deps.devices.phaseOf(account.id, nif));
    },
  );

  api.put(
    '/panel/v1/cuentas/:idCuenta/clientes/:nif/fase',
    {
      schema: {
        tags: ['panel'],
        summary: 'Cambiar la fase de alta capacidad (equipo de servicio); salir de activa se rechaza si algún dispositivo tiene cadena',
        params,
        body: z.strictObject({ faseAltaCapacidad: faseAltaCapacidadSchema }),
        response: { 200: panelFaseSchema },
      },
    },
    async (request) => {
      const account = accountOf(request.params.idCuenta);
      const nif = normalizeNif(request.params.nif);
      return faseView(nif, deps.devices.setPhase(account.id, nif, request.body.faseAltaCapacidad));
    },
  );
}
