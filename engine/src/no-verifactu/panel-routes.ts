import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { entornoSchema } from '../../../src-shared/api/common';
import {
  deteccionAnomaliasSchema,
  exportacionBodySchema,
  exportacionResponseSchema,
  modoSifResponseSchema,
  modoSifSchema,
  requerimientoBodySchema,
  requerimientoResponseSchema,
} from '../../../src-shared/api/eventos';
import { normalizeNif } from '../../../src-shared/nif';
import type { Issuer, IssuerStore } from '../clients/store';
import { notFound } from '../core/errors';
import type { NoVerifactuModule } from './module';

const nifParams = z.object({ nif: z.string() });
const modoBody = z.strictObject({ entorno: entornoSchema, modoSif: modoSifSchema });
const anomaliasBody = z.strictObject({ entorno: entornoSchema, nif: z.string() });
const ficheroParams = z.object({ nif: z.string(), fichero: z.string() });
const entornoQuery = z.object({ entorno: entornoSchema });

/** Where the panel's exports go: the same folder as the admin CLI's default. */
export function carpetaExportaciones(dataDir: string): string {
  return path.join(dataDir, 'exportaciones');
}

/**
 * The service team's side of «NO VERI*FACTU» (issue 32): setting an installation's mode (never per
 * invoice or session) and running anomaly detection on demand from the sync view. An issuer is one
 * (environment, NIF): NIFs are unique across accounts.
 */
export function noVerifactuPanelRoutes(app: FastifyInstance, deps: { issuers: IssuerStore; noVerifactu: NoVerifactuModule; dataDir: string }): void {
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
        body: requerimientoBodySchema,
        response: { 200: requerimientoResponseSchema },
      },
    },
    async (request) => {
      const { entorno, refRequerimiento, desde, hasta } = request.body;
      return deps.noVerifactu.requerimientos.remitir(issuerOf(entorno, request.params.nif), { ref: refRequerimiento, desde: new Date(desde), hasta: new Date(hasta) });
    },
  );
  api.post(
    '/panel/v1/clientes/:nif/exportacion',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Exportación de los registros de facturación y de eventos de un periodo (ficheros JSON Lines; cada exportación queda como evento 08/09)',
        params: nifParams,
        body: exportacionBodySchema,
        response: { 200: exportacionResponseSchema },
      },
    },
    async (request) => {
      const { entorno, desde, hasta } = request.body;
      const hecho = deps.noVerifactu.exportaciones.exportar(issuerOf(entorno, request.params.nif), { desde: new Date(desde), hasta: new Date(hasta) }, carpetaExportaciones(deps.dataDir));
      // The page gets the files' names (to download them below), never the server's paths.
      return {
        ...hecho,
        registros: { ...hecho.registros, fichero: path.basename(hecho.registros.fichero) },
        eventos: hecho.eventos === null ? null : { ...hecho.eventos, fichero: path.basename(hecho.eventos.fichero) },
      };
    },
  );
  api.get(
    '/panel/v1/clientes/:nif/exportaciones/:fichero',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Descarga de un fichero exportado (JSON Lines: cada registro o evento con su XML firmado tal como se guardó)',
        params: ficheroParams,
        querystring: entornoQuery,
      },
    },
    async (request, reply) => {
      const issuer = issuerOf(request.query.entorno, request.params.nif);
      const { fichero } = request.params;
      // Only a file this issuer's export wrote: its name, never a path.
      const nombre = new RegExp(`^(registros|eventos)-${issuer.nif}-${issuer.entorno}-[0-9TZ-]+\\.jsonl$`);
      if (!nombre.test(fichero)) throw notFound('Exportación no encontrada');
      let contenido: Buffer;
      try {
        contenido = await readFile(path.join(carpetaExportaciones(deps.dataDir), fichero));
      } catch {
        throw notFound('Exportación no encontrada');
      }
      return reply.type('application/x-ndjson; charset=utf-8').header('content-disposition', `attachment; filename="${fichero}"`).send(contenido);
    },
  );
}
