// Queues held for a person (issue 28: AEAT 4104, the issuer's NIF not identified…): the engine keeps
// the records and backs off to a long interval; the sync view says what happened and what to do.
import type { Lang } from '../../i18n';
import { explainBloqueo, type Problem } from '../../api/problems';
import type { SyncResumen } from './store';

type Cola = SyncResumen['colas'][number];

export interface ColaBloqueada {
  queueKey: string;
  autoridad: string;
  entorno: Cola['entorno'];
  obligado: string;
  pendientes: number;
  /** What happened and what to do (mensaje); the AEAT's code and text (detalle). */
  problema: Problem;
  /** Since when the queue is held (null: the engine did not say). */
  desde: string | null;
  /** The next attempt on its own (the long back-off); «Reintentar ahora» tries at once. */
  proximoIntentoEn: string | null;
}

/** The held queues, oldest hold first. */
export function colasBloqueadas(lang: Lang, resumen: SyncResumen | undefined): ColaBloqueada[] {
  const out: ColaBloqueada[] = [];
  for (const c of resumen?.colas ?? []) {
    const problema = explainBloqueo(lang, c.bloqueo);
    if (!c.bloqueo || !problema) continue;
    out.push({
      queueKey: c.queueKey,
      autoridad: c.autoridad,
      entorno: c.entorno,
      obligado: c.obligado,
      pendientes: c.pendientes,
      problema,
      desde: c.bloqueo.desde,
      proximoIntentoEn: c.bloqueo.reintentoEn ?? c.proximoIntentoEn,
    });
  }
  return out.sort((a, b) => (a.desde ?? '').localeCompare(b.desde ?? ''));
}
