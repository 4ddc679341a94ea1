import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { declaracionResponseSchema } from '../../../src-shared/api/cuenta';
import { EngineError, notFound } from '../core/errors';
import { DECLARATION_HTML_KEY, DECLARATION_KEY, type DeclarationService } from './service';

const notUploaded = () =>
  new EngineError(404, 'NOT_UPLOADED_YET', 'No hay ninguna declaración responsable publicada');

/**
 * GET /v1/cumplimiento/declaracion-responsable (keyed) and the document itself at a public URL,
 * readable without a key as the spec requires.
 */
export function complianceRoutes(
  app: FastifyInstance,
  deps: { declarations: DeclarationService; publicBaseUrl: () => string },
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/v1/cumplimiento/declaracion-responsable',
    {
      schema: {
        tags: ['cumplimiento'],
        summary: 'Declaración responsable vigente',
        response: { 200: declaracionResponseSchema },
      },
    },
    async () => {
      const current = deps.declarations.current();
      if (!current) throw notUploaded();
      return {
        url: `${deps.publicBaseUrl()}/public/${current.key}`,
        key: current.key,
        lastModified: current.lastModified,
        storageClass: 'STANDARD',
      };
    },
  );

  api.get(
    '/public/cumplimiento/:archivo',
    {
      config: { public: true },
      schema: {
        tags: ['cumplimiento'],
        summary: 'Documento publicado (sin clave)',
        params: z.object({ archivo: z.string() }),
      },
    },
    async (request, reply) => {
      const current = deps.declarations.current();
      if (!current) throw notUploaded();
      const key = `cumplimiento/${request.params.archivo}`;
      reply.header('last-modified', new Date(current.lastModified).toUTCString());
      if (key === DECLARATION_KEY) return reply.type('application/pdf').send(Buffer.from(current.pdf));
      if (key === DECLARATION_HTML_KEY) return reply.type('text/html; charset=utf-8').send(current.html);
      throw notFound('Documento no encontrado');
    },
  );
}
