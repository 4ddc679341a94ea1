// Support staff's view of filing: what waits, in which state, when the next attempt is, whether
// each authority answers; retry now, pause; in TEST, the fault controls of every emulator the panel
// relays (down/up, slow, HTTP 500, reject the next record).
import { useEffect } from 'react';
import type { Entorno } from '../../../src-shared/api/common';
import { useSession, useT } from '../../app/session';
import { formatTimestamp } from '../../platform/dates';
import { emuladoresVisibles, enVuelo, LENTO_MS, useSync, type Falla } from './store';

const ENTORNOS: Entorno[] = ['test', 'live'];

/** Polls `fn` every `ms` without overlapping calls, while mounted. */
function usePolling(fn: () => Promise<void>, ms: number) {
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      await fn();
      if (!stopped) timer = setTimeout(() => void tick(), ms);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [fn, ms]);
}

export function SyncScreen() {
  const t = useT();
  const entornoActual = useSession((s) => s.entorno);
  const sync = useSync();
  usePolling(useSync.getState().refresh, 1000);
  usePolling(useSync.getState().refreshLotes, 2000);
  usePolling(useSync.getState().refreshFaults, 3000);
  const r = sync.resumen;

  return (
    <div className="sync" data-testid="screen-sync" data-ready={r ? 'true' : 'false'}>
      <header className="toolbar">
        <h1>{t('sync.titulo')}</h1>
        <button type="button" className="primary" data-testid="sync-retry" disabled={sync.busy} onClick={() => void sync.reintentar()}>
          {t('sync.reintentar')}
        </button>
        <span className="small">
          {t('sync.actualizado')}: {sync.actualizadoEn ? sync.actualizadoEn.toLocaleTimeString() : '—'}
        </span>
      </header>
      {sync.error ? <div className="banner banner-error">{sync.error}</div> : null}

      <section className="cards">
        <div className="card" data-testid="sync-authorities">
          <h2>{t('sync.autoridades')}</h2>
          {r && r.autoridades.length > 0 ? (
            <ul className="plain">
              {r.autoridades.map((a) => (
                <li key={`${a.autoridad}-${a.entorno}`} data-testid="sync-authority" data-autoridad={a.autoridad} data-entorno={a.entorno} data-alcanzable={String(a.alcanzable)}>
                  <strong>{a.autoridad.toUpperCase()}</strong> ({t(`entorno.${a.entorno}`)}):{' '}
                  <span className={a.alcanzable === false ? 'bad' : a.alcanzable ? 'ok' : ''}>
                    {a.alcanzable === null ? t('sync.sinDatos') : a.alcanzable ? t('sync.alcanzable') : t('sync.noAlcanzable')}
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="hint">{t('sync.sinDatos')}</p>
          )}
        </div>

        {ENTORNOS.map((entorno) => (
          <div key={entorno} className={`card ${entorno === entornoActual ? 'card-current' : ''}`} data-testid={`sync-entorno-${entorno}`} data-en-vuelo={enVuelo(r, entorno)} data-pausado={r ? String(r.pausado[entorno]) : ''}>
            <h2>
              {t('sync.cola')} · {t(`entorno.${entorno}`)}
            </h2>
            <table className="grid compact">
              <tbody>
                {Object.entries(r?.porEstadoEnvio[entorno] ?? {}).map(([estado, n]) => (
                  <tr key={estado} data-testid="sync-estado" data-estado={estado} data-count={n}>
                    <td>{t(`estado.${estado}`)}</td>
                    <td className="col-num">{n}</td>
                  </tr>
                ))}
                <tr>
                  <td>
                    <strong>{t('sync.enVuelo')}</strong>
                  </td>
                  <td className="col-num" data-testid={`sync-en-vuelo-${entorno}`}>
                    {enVuelo(r, entorno)}
                  </td>
                </tr>
                <tr>
                  <td>{t('sync.rechazados')}</td>
                  <td className="col-num">{r?.rechazados[entorno] ?? 0}</td>
                </tr>
              </tbody>
            </table>
            {r ? (
              <button type="button" data-testid={`sync-pause-${entorno}`} onClick={() => void sync.pausa(entorno, !r.pausado[entorno])}>
                {r.pausado[entorno] ? t('sync.reanudar') : t('sync.pausar')}
              </button>
            ) : null}
            {r?.pausado[entorno] ? <span className="badge badge-rechazada"> {t('sync.pausado')}</span> : null}
          </div>
        ))}

        {sync.emuladores && entornoActual === 'test'
          ? emuladoresVisibles(sync).map((e) => {
              const f = sync.faults[e.id];
              const boton = (falla: Falla, testid: string, label: string) => (
                <button type="button" data-testid={`sync-${e.id}-${testid}`} onClick={() => void sync.falla(e.id, falla)}>
                  {label}
                </button>
              );
              return (
                <div key={e.id} className="card card-warn" data-testid={`sync-faults-${e.id}`} data-mode={f?.mode ?? ''} data-reject-next={f?.rejectNext?.count ?? 0}>
                  <h2>{t(`emulador.${e.id}`)}</h2>
                  <p className="small">{t('sync.emuladores')}</p>
                  <p>
                    {t('sync.modo')}: <strong data-testid={`sync-fault-mode-${e.id}`}>{f?.mode ?? '—'}</strong>
                    {f?.rejectNext ? ` · rejectNext ${f.rejectNext.count} (${f.rejectNext.codigo})` : ''}
                  </p>
                  <div className="actions">
                    {boton('caida', 'down', t('sync.tumbar'))}
                    {boton('normal', 'up', t('sync.levantar'))}
                    {boton('lento', 'slow', t('sync.lento', { s: LENTO_MS / 1000 }))}
                    {boton('http500', 'http500', t('sync.http500'))}
                    {e.rechazo !== undefined ? boton('rechazarSiguiente', 'reject-next', t('sync.rechazarSiguiente')) : null}
                  </div>
                </div>
              );
            })
          : null}
      </section>
      {sync.emuladores && entornoActual === 'test' && sync.sinControles.length > 0 ? (
        <p className="hint" data-testid="sync-sin-controles">
          {t('sync.sinControles', { lista: sync.sinControles.map((id) => t(`emulador.${id}`)).join(', ') })}
        </p>
      ) : null}

      <section>
        <h2>{t('sync.colas')}</h2>
        <table className="grid" data-testid="sync-queues">
          <thead>
            <tr>
              <th>{t('sync.colaNombre')}</th>
              <th className="col-num">{t('sync.pendientes')}</th>
              <th>{t('sync.proximoIntento')}</th>
              <th className="col-num">{t('sync.fallos')}</th>
              <th>{t('sync.alcanzable')}</th>
              <th>{t('sync.ultimoError')}</th>
            </tr>
          </thead>
          <tbody>
            {(r?.colas ?? []).map((c) => (
              <tr key={c.queueKey} data-testid="sync-queue" data-pendientes={c.pendientes}>
                <td className="mono small">{c.queueKey}</td>
                <td className="col-num">{c.pendientes}</td>
                <td>{formatTimestamp(c.proximoIntentoEn)}</td>
                <td className="col-num">{c.fallosSeguidos}</td>
                <td>{c.alcanzable === null ? '—' : c.alcanzable ? t('comun.si') : t('comun.no')}</td>
                <td className="small">
                  {c.ultimoError ?? '—'}
                  {c.ultimoErrorEn ? ` (${formatTimestamp(c.ultimoErrorEn)})` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {r && r.colas.every((c) => c.pendientes === 0) ? <p className="hint">{t('sync.vacia')}</p> : null}
      </section>

      <section className="lotes">
        <h2>{t('sync.lotes')}</h2>
        <table className="grid" data-testid="sync-batches">
          <thead>
            <tr>
              <th>{t('facturas.lote')}</th>
              <th>{t('facturas.fecha')}</th>
              <th className="col-num">{t('sync.registros')}</th>
              <th>{t('facturas.estado')}</th>
              <th>{t('facturas.csv')}</th>
              <th>{t('sync.ultimoError')}</th>
            </tr>
          </thead>
          <tbody>
            {sync.lotes.map((l) => (
              <tr key={l.idLote} data-testid="sync-batch" className={sync.lote?.idLote === l.idLote ? 'selected' : ''} onClick={() => void sync.openLote(l.idLote)}>
                <td className="mono small">{l.idLote}</td>
                <td>{formatTimestamp(l.creadoEn)}</td>
                <td className="col-num">{l.numRegistros}</td>
                <td>
                  {l.estado}
                  {l.estadoEnvio ? ` · ${l.estadoEnvio}` : ''}
                  {l.incidencia ? ` · ${t('sync.incidencia')}` : ''}
                </td>
                <td className="mono small">{l.csv ?? '—'}</td>
                <td className="small">{l.ultimoError ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {sync.lote ? (
          <div className="lote" data-testid="sync-batch-detail">
            <h3>
              {t('facturas.respuesta')} · {sync.lote.idLote}
            </h3>
            <pre className="xml">{sync.lote.respuesta ?? sync.lote.ultimoError ?? '—'}</pre>
          </div>
        ) : null}
      </section>
    </div>
  );
}
