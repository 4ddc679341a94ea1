// The queues held for a person, first thing in the sync view: what happened and what to do in the
// staff's words, how many invoices are kept waiting, since when, the next attempt on its own; the
// AEAT's code and text folded as «Detalle técnico».
import { useFormat, useT } from '../../app/session';
import { hasMessage } from '../../i18n';
import { colasBloqueadas } from './bloqueos';
import type { SyncResumen } from './store';

export function BloqueosCard({ resumen }: { resumen: SyncResumen | undefined }) {
  const t = useT();
  const fmt = useFormat();
  const bloqueadas = colasBloqueadas(fmt.lang, resumen);
  if (bloqueadas.length === 0) return null;
  const autoridadNombre = (id: string) => (hasMessage(`emulador.${id}`) ? t(`emulador.${id}`) : id.toUpperCase());
  return (
    <section className="card card-warn" role="alert" aria-labelledby="sync-bloqueos-titulo" data-testid="sync-bloqueos">
      <h2 id="sync-bloqueos-titulo">{t('sync.bloqueo.titulo')}</h2>
      <ul className="plain">
        {bloqueadas.map((b) => (
          <li key={b.queueKey} data-testid="sync-bloqueo" data-obligado={b.obligado} data-entorno={b.entorno}>
            <strong>
              {autoridadNombre(b.autoridad)} · {t(`entorno.${b.entorno}`)} · NIF {b.obligado}
            </strong>
            <p data-testid="sync-bloqueo-mensaje">{b.problema.mensaje}</p>
            <dl className="facts compact">
              <dt>{t('sync.bloqueo.guardadas')}</dt>
              <dd data-testid="sync-bloqueo-pendientes">{b.pendientes}</dd>
              {b.desde ? (
                <>
                  <dt>{t('sync.bloqueo.desde')}</dt>
                  <dd>{fmt.dateTime(b.desde)}</dd>
                </>
              ) : null}
              <dt>{t('sync.proximoIntento')}</dt>
              <dd data-testid="sync-bloqueo-proximo" data-en={b.proximoIntentoEn ?? ''}>
                {b.proximoIntentoEn ? t('sync.bloqueo.proximo', { cuando: fmt.dateTime(b.proximoIntentoEn) }) : '—'}
              </dd>
            </dl>
            <details className="problem-detail">
              <summary>{t('error.detalle')}</summary>
              <code className="mono small" data-testid="sync-bloqueo-detalle">
                {b.problema.detalle}
              </code>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}
