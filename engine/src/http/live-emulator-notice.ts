import type { FastifyInstance } from 'fastify';

export const LIVE_EN_EMULADOR_AVISO =
  'LIVE_EN_EMULADOR: este motor envía LIVE a los emuladores, no a la AEAT ni a las haciendas forales; esta factura no se ha presentado de verdad';

/** Issuing routes: their answers carry `avisos` (src-shared/api/emision.ts). */
const ISSUING = /^\/v1\/(verifactu|ticketbai)\//;

/**
 * LIVE is never filed to an emulator unnoticed (issue 30): while LIVE points at the shipped
 * emulators, every LIVE issuing answer gets LIVE_EN_EMULADOR in `avisos`, so POS software and
 * the till UI cannot take it for a filing with the AEAT. Only such an engine pays for the re-parse.
 */
export function liveEmulatorNoticeHook(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.caller?.entorno !== 'live' || request.method !== 'POST' || !ISSUING.test(request.url) || typeof payload !== 'string' || reply.statusCode >= 300) {
      done(null, payload);
      return;
    }
    try {
      const body = JSON.parse(payload) as unknown;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        done(null, payload);
        return;
      }
      const answer = body as { avisos?: unknown };
      const avisos = Array.isArray(answer.avisos) ? answer.avisos : [];
      done(null, JSON.stringify({ ...answer, avisos: [LIVE_EN_EMULADOR_AVISO, ...avisos] }));
    } catch {
      done(null, payload);
    }
  });
}
