import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { entornoSchema } from '../../../src-shared/api/common';
import { deteccionAnomaliasSchema, modoSifResponseSchema, modoSifSchema } from '../../../src-shared/api/eventos';
import { normalizeNif } from '../../../src-shared/nif';
import type { Issuer, IssuerStore } from '../clients/store';
import { notFound } from '../core/errors';
import type { NoVerifactuModule } from './module';

const nifParams = z.object({ nif: z.string() });
const modoBody = z.strictObject({ entorno: entornoSchema, modoSif: modoSifSchema });
const anomaliasBody = z.strictObject({ entorno: entornoSchema, nif: z.string() });
const requerimientoBody = z.strictObject({
  entorno: entornoSchema,
  // The AEAT refuses a reference that is not alphanumeric (4133): refused here, before anything is sent.
  refRequerimiento: z.string().min(1).max(18).regex(/^[A-Za-z0-9]+$/, 'RefRequerimiento: solo letras y cifras (AEAT 4133)'),
  desde: z.iso.datetime({ offset: true }),
  hasta: z.iso.datetime({ offset: true }),
});

/**
 * The service team's side of «NO VERI*FACTU» (issue 32): setting an installation's mode (never per
 * invoice or session) and running anomaly detection on demand from the sync view. An issuer is one
 * (environment, NIF): NIFs are unique across accounts.
 */
export function noVerifactuPanelRoutes(app: FastifyInstance, deps: { issuers: IssuerStore; noVerifactu: NoVerifactuModule }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const issuerOf = (entorno: 'test' | 'live', nif: string): Issuer => {
    const issuer = deps.issuers.find(entorno, normalizeNif(nif));
    if (!issuer || issuer.estado === 'eliminado') throw notFound('Emisor no encontrado');
    return issuer;
  };
  api.put(
    '/panel/v1/clientes/:nif/modo-sif',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Modo VERI*FACTU o NO VERI*FACTU de la instalación del emisor (las normas de cambio se aplican y explican)',
        params: nifParams,
        body: modoBody,
        response: { 200: modoSifResponseSchema },
      },
    },
    async (request) => deps.noVerifactu.modos.cambiar(issuerOf(request.body.entorno, request.params.nif), request.body.modoSif),
  );
  api.post(
    '/panel/v1/sync/anomalias',
    {
      schema: {
        tags: ['sync'],
        summary: 'Detección de anomalías: huellas, firmas y cadenas de registros y eventos; la ejecución y cada anomalía quedan como eventos',
        body: anomaliasBody,
        response: { 200: deteccionAnomaliasSchema },
      },
    },
    async (request) => deps.noVerifactu.anomalias.ejecutar(issuerOf(request.body.entorno, request.body.nif)),
  );
  api.post(
    '/panel/v1/clientes/:nif/requerimiento',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Remisión a la AEAT, bajo su requerimiento, de los registros NO VERI*FACTU conservados de un periodo (RemisionRequerimiento)',
        params: nifParams,
        body: requerimientoBody,
      },
    },
    async (request) => {
      const { entorno, refRequerimiento, desde, hasta } = request.body;
      return deps.noVerifactu.requerimientos.remitir(issuerOf(entorno, request.params.nif), { ref: refRequerimiento, desde: new Date(desde), hasta: new Date(hasta) });
    },
  );
}
