import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  firmanteSchema,
  representacionEstadoSchema,
  representacionFirmarBodySchema,
  representacionFirmarResponseSchema,
  representacionVerificarBodySchema,
  representacionVerificarResponseSchema,
} from '../../../src-shared/api/clientes';
import { entornoSchema, timestampSchema } from '../../../src-shared/api/common';
import { callerOf } from '../core/caller';
import type { RepresentationService } from './service';

const nifParam = z.object({ nif: z.string() });

const generarJsonSchema = z.object({
  nif: z.string(),
  documentoId: z.string(),
  generadoEn: timestampSchema,
  /** The PDF, base64 (what POST …/firmar takes back as `pdf`). */
  pdf: z.string(),
});

const certificadoPruebaBodySchema = z.strictObject({
  /** Protects the PKCS#12 returned, as a real .p12 is protected. */
  password: z.string({ error: 'password must be a string' }).min(1, { error: 'password must not be empty' }),
});

const certificadoPruebaResponseSchema = z.object({
  nif: z.string(),
  /** PKCS#12 (base64): what POST …/firmar takes as `certificado`, with this password. */
  certificado: z.string(),
  titular: firmanteSchema,
  entorno: entornoSchema,
});

/** Representation of an issuer (API-CONTRACT, management API beyond the spec). */
export function representationRoutes(app: FastifyInstance, deps: { representation: RepresentationService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const rep = deps.representation;

  api.get(
    '/v1/clientes/:nif/representacion/generar',
    {
      schema: {
        tags: ['representacion'],
        summary:
          'Documento de representación en PDF con los datos del emisor (inicia la firma). Accept: application/json devuelve el PDF en base64. 400 con camposFaltantes',
        params: nifParam,
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { pdf, documento } = await rep.generate(caller, request.params.nif);
      const accept = request.headers.accept ?? '';
      if (accept.includes('application/json') && !accept.includes('application/pdf')) {
        return reply.type('application/json').send(
          generarJsonSchema.parse({
            nif: request.params.nif,
            documentoId: documento.id,
            generadoEn: documento.generadoEn,
            pdf: Buffer.from(pdf).toString('base64'),
          }),
        );
      }
      return reply
        .type('application/pdf')
        .header('content-disposition', `inline; filename="representacion-${documento.id}.pdf"`)
        .send(Buffer.from(pdf));
    },
  );

  api.post(
    '/v1/clientes/:nif/representacion/firmar',
    {
      schema: {
        tags: ['representacion'],
        summary: 'Firmar el documento en curso con un certificado PKCS#12 del emisor o de su representante',
        params: nifParam,
        body: representacionFirmarBodySchema,
        response: { 200: representacionFirmarResponseSchema },
      },
      // A PKCS#12 plus the PDF, both in base64.
      bodyLimit: 8 * 1024 * 1024,
    },
    async (request) => rep.sign(callerOf(request), request.params.nif, request.body),
  );

  api.post(
    '/v1/clientes/:nif/representacion/verificar',
    {
      schema: {
        tags: ['representacion'],
        summary:
          'Verificar un documento de representación firmado (aquí o fuera); completa la firma en curso si es válido. 400 SIGNATURE_CRYPTO_INVALID, SIGNATURE_UNTRUSTED_CA, SIGNATURE_CONTENT_MISMATCH, SIGNATURE_COMPANY_NIF_MISMATCH, SIGNATURE_REP_NIF_MISMATCH o SIGNATURE_INVALID si no se acepta (motivos en details)',
        params: nifParam,
        body: representacionVerificarBodySchema,
        response: { 200: representacionVerificarResponseSchema },
      },
      bodyLimit: 8 * 1024 * 1024,
    },
    async (request) => rep.verify(callerOf(request), request.params.nif, request.body),
  );

  api.post(
    '/v1/clientes/:nif/representacion/certificado-prueba',
    {
      schema: {
        tags: ['representacion'],
        summary:
          'Solo TEST: certificado PKCS#12 de pruebas, emitido por la AC de pruebas de esta instalación, para quien firma el documento (representante legal de una empresa, o el propio emisor). 404 en LIVE',
        params: nifParam,
        body: certificadoPruebaBodySchema,
        response: { 200: certificadoPruebaResponseSchema },
      },
    },
    async (request) => rep.issueTestCertificate(callerOf(request), request.params.nif, request.body),
  );

  api.get(
    '/v1/clientes/:nif/representacion/estado',
    {
      schema: {
        tags: ['representacion'],
        summary: 'Estado de la representación y de la firma en curso',
        params: nifParam,
        response: { 200: representacionEstadoSchema },
      },
    },
    async (request) => rep.status(callerOf(request), request.params.nif),
  );

  api.delete(
    '/v1/clientes/:nif/representacion/firma-en-curso',
    {
      schema: {
        tags: ['representacion'],
        summary: 'Cancelar la firma en curso (desbloquea nombre, dirección y representante)',
        params: nifParam,
        response: { 200: representacionEstadoSchema },
      },
    },
    async (request) => rep.cancel(callerOf(request), request.params.nif),
  );
}
