import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { eventosListQuerySchema, eventosListResponseSchema, tipoEventoSchema } from '../../../src-shared/api/eventos';
import { callerOf } from '../core/caller';
import { forbidden } from '../core/errors';
import { parseBillingLimite, type CursorCodec } from '../core/pagination';
import type { IssuerStore } from '../clients/store';
import type { Clock } from '../platform/clock';
import type { NoVerifactuModule } from './module';

const nifParam = z.object({ nif: z.string() });

/** The event log on the management API: `GET /v1/clientes/{nif}/eventos`, newest first, paged like the other lists. */
export function eventosRoutes(app: FastifyInstance, deps: { issuers: IssuerStore; noVerifactu: NoVerifactuModule; cursors: CursorCodec; clock: Clock }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    '/v1/clientes/:nif/eventos',
    {
      schema: {
        tags: ['clientes'],
        summary: 'Extensión: registro de eventos (RegistroEvento firmados y encadenados) de la instalación NO VERI*FACTU del emisor',
        params: nifParam,
        querystring: eventosListQuerySchema,
        response: { 200: eventosListResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const issuer = deps.issuers.findForAccount(caller.account.id, caller.entorno, request.params.nif);
      if (!issuer) throw forbidden();
      const limit = parseBillingLimite(request.query.limite);
      const scope = { accountId: caller.account.id, endpoint: 'eventos', entorno: caller.entorno, nifEmisor: issuer.nif };
      const now = deps.clock.now();
      // Keyset on the chain position (kept in the cursor's id).
      const antesDe = request.query.cursor ? Number(deps.cursors.decode(request.query.cursor, scope, now).id) : undefined;
      const rows = deps.noVerifactu.eventos.pagina(caller.entorno, issuer.nif, antesDe, limit + 1);
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        nif: issuer.nif,
        entorno: caller.entorno,
        modoSif: deps.noVerifactu.modos.modo(caller.entorno, issuer.nif),
        eventos: page.map((e) => ({
          idEvento: e.id,
          secuencia: e.seq,
          tipoEvento: tipoEventoSchema.parse(e.tipoEvento),
          fechaHoraHusoGenEvento: e.fechaHoraHusoGenEvento,
          huella: e.huella,
          ...(e.huellaAnterior !== null ? { huellaAnterior: e.huellaAnterior } : {}),
          creadoEn: e.creadoEn,
          xml: e.xml,
        })),
        total: page.length,
        proximaPagina: rows.length > limit && last ? deps.cursors.encode({ creadoEn: last.creadoEn, id: String(last.seq) }, scope, now) : null,
      };
    },
  );
}
