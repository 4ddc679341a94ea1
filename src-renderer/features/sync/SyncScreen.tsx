// Support staff's view of filing. First what they need: per authority whether it answers, how
// many records wait, the oldest one and its age, the next attempt and the last error in words;
// counts that add up (waiting + rejected not yet corrected). Then retry now, pause, «Verificar
// cadenas», the queues per device/issuer and the batches with their replies. The emulators' fault
// controls sit folded in «Ensayo de incidencias», only for the authorities the till's issuers use.
import { useEffect, useState } from 'react';
import type { Entorno } from '../../../src-shared/api/common';
import { explainSendError } from '../../api/problems';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useFormat, useSession, useT } from '../../app/session';
import { hasMessage } from '../../i18n';
import { useNombreCaja } from '../device/names';
import { autoridadesVista, avisoSinPendientes, conservadasSinEnvio, emuladoresDeEmisores, emuladoresVisibles, enVuelo, errorVigente, estadoLote, LENTO_MS, useSync, type Falla, type SyncResumen } from './store';

/** A batch told apart from the others: its time-ordered ids share their start, so their end is shown. */
function idLoteCorto(idLote: string): string {
  return idLote.length > 12 ? `…${idLote.slice(-8)}` : idLote;
}
import { ChainCheck } from './ChainCheck';
import { BloqueosCard } from './BloqueosCard';
import { colasBloqueadas } from './bloqueos';
import { NoVerifactuPanel } from './NoVerifactuPanel';
import { useEsAdministrador } from '../../app/rol';

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

type Cola = SyncResumen['colas'][number];

export function SyncScreen() {
  const t = useT();
  const fmt = useFormat();
  const entornoActual = useSession((s) => s.entorno);
  const emisor = useSession((s) => s.emisor);
  const idMaquina = useSession((s) => s.idMaquina);
  const nombreCaja = useNombreCaja();
  const sync = useSync();
  // A till's own credential: the administrator's controls are disabled, with the reason beside them.
  const admin = useEsAdministrador();
  const soloAdmin = admin ? {} : { title: t('error.soloAdministrador'), 'aria-describedby': 'sync-solo-admin' };
  usePolling(useSync.getState().refresh, 1000);
  usePolling(useSync.getState().refreshLotes, 2000);
  usePolling(useSync.getState().refreshFaults, 3000);
  const [now, setNow] = useState(() => new Date());
  useEffect(() => setNow(sync.actualizadoEn ?? new Date()), [sync.actualizadoEn]);
  const r = sync.resumen;
  const autoridadNombre = (id: string) => (hasMessage(`emulador.${id}`) ? t(`emulador.${id}`) : id.toUpperCase());
  const usados = emuladoresDeEmisores(emisor ? [emisor.hacienda] : ['verifactu']);
  const ensayo = admin && sync.emuladores && entornoActual === 'test' ? emuladoresVisibles(sync).filter((e) => usados.includes(e.id)) : [];
  const modo = (m: string | undefined) => (m && hasMessage(`modo.${m}`) ? t(`modo.${m}`) : (m ?? '—'));
  // The probe's answer (now) over the queues' last attempt (maybe minutes ago).
  const vista = autoridadesVista(r).map((a) => {
    const sonda = sync.alcance?.entorno === a.entorno ? sync.alcance.autoridades.find((x) => x.autoridad === a.autoridad) : undefined;
    return sonda ? { ...a, alcanzable: sonda.alcanzable } : a;
  });
  const rechazadosActual = r?.rechazados[entornoActual] ?? 0;
  // An authority with a queue held for a person: its last error is that hold, said in the card above.
  const retenidas = new Set(colasBloqueadas(fmt.lang, r).map((b) => `${b.autoridad}-${b.entorno}`));

  const colaNombre = (c: Cola) => `${autoridadNombre(c.autoridad)} · ${t(`entorno.${c.entorno}`)} · NIF ${c.obligado}`;

  return (
    <div className="sync" data-testid="screen-sync" data-ready={r ? 'true' : 'false'}>
      <header className="toolbar">
        <h1>{t('sync.titulo')}</h1>
        <button type="button" className="primary" data-testid="sync-retry" disabled={sync.busy} onClick={() => void sync.reintentar()}>
          {t('sync.reintentar')}
        </button>
        <button type="button" data-testid="sync-verificar" disabled={sync.verificando || !admin} {...soloAdmin} onClick={() => void sync.verificarCadenas()}>
          {sync.verificando ? t('sync.verificando') : t('sync.verificar')}
        </button>
        {sync.reintentado ? (
          <span className="banner banner-ok small" role="status" data-testid="sync-reintentado">
            {sync.reintentado.colas > 0
              ? t('sync.reintentado', { hora: fmt.time(sync.reintentado.en), n: sync.reintentado.colas })
              : t('sync.reintentadoNada', { hora: fmt.time(sync.reintentado.en) })}
          </span>
        ) : null}
        <span className="small" data-testid="sync-actualizado">
          {t('sync.actualizado')}: {sync.actualizadoEn ? fmt.time(sync.actualizadoEn) : '—'}
        </span>
      </header>
      {admin ? null : (
        <p className="hint" id="sync-solo-admin" data-testid="sync-solo-admin">
          {t('rol.cajaSync')}
        </p>
      )}
      <ProblemBanner problem={sync.error} testid="sync-error" />
      <ChainCheck />
      <BloqueosCard resumen={r} />
      {emisor?.modoSif === 'no_verifactu' ? <NoVerifactuPanel /> : null}

      <section className="cards" aria-live="polite">
        <div className="card" data-testid="sync-authorities">
          <h2>{t('sync.autoridades')}</h2>
          {vista.length > 0 ? (
            <ul className="plain">
              {vista.map((a) => {
                const error = explainSendError(fmt.lang, a.ultimoError);
                return (
                  <li key={`${a.autoridad}-${a.entorno}`} data-testid="sync-authority" data-autoridad={a.autoridad} data-entorno={a.entorno} data-alcanzable={String(a.alcanzable)} data-pendientes={a.pendientes}>
                    <strong>{autoridadNombre(a.autoridad)}</strong> ({t(`entorno.${a.entorno}`)}):{' '}
                    <span className={a.alcanzable === false ? 'bad' : a.alcanzable ? 'ok' : ''} data-testid="sync-authority-estado">
                      {a.alcanzable === null ? t('sync.sinDatos') : a.alcanzable ? t('sync.alcanzable') : t('sync.noAlcanzable')}
                    </span>
                    <dl className="facts compact">
                      <dt>{t('sync.pendientesEnvio')}</dt>
                      <dd data-testid="sync-authority-pendientes">{a.pendientes}</dd>
                      {a.masAntiguoEn ? (
                        <>
                          <dt>{t('sync.masAntiguo')}</dt>
                          <dd data-testid="sync-authority-antiguo">
                            {fmt.dateTime(a.masAntiguoEn)} ({fmt.age(a.masAntiguoEn, now)})
                          </dd>
                        </>
                      ) : null}
                      {a.proximoIntentoEn ? (
                        <>
                          <dt>{t('sync.proximoIntento')}</dt>
                          <dd data-testid="sync-authority-proximo" data-en={a.proximoIntentoEn}>
                            {fmt.dateTime(a.proximoIntentoEn)}
                          </dd>
                        </>
                      ) : null}
                      {error ? (
                        <>
                          <dt>{t('sync.ultimoError')}</dt>
                          <dd data-testid="sync-authority-error">
                            {retenidas.has(`${a.autoridad}-${a.entorno}`) ? t('sync.bloqueo.enCola') : error.mensaje}
                            {a.ultimoErrorEn ? ` (${fmt.time(a.ultimoErrorEn)})` : ''}
                            <details className="problem-detail">
                              <summary>{t('error.detalle')}</summary>
                              <code className="mono small">{error.detalle}</code>
                            </details>
                          </dd>
                        </>
                      ) : null}
                    </dl>
                  </li>
                );
              })}
            </ul>
          ) : (
            <p className="hint">{t('sync.sinDatos')}</p>
          )}
        </div>

        {ENTORNOS.map((entorno) => (
          <div
            key={entorno}
            className={`card ${entorno === entornoActual ? 'card-current' : ''}`}
            data-testid={`sync-entorno-${entorno}`}
            data-en-vuelo={enVuelo(r, entorno)}
            data-pausado={r ? String(r.pausado[entorno]) : ''}
          >
            <h2>{t(`entorno.${entorno}`)}</h2>
            <table className="grid compact">
              <tbody>
                <tr>
                  <td>{t('sync.pendientesEnvio')}</td>
                  <td className="col-num" data-testid={`sync-en-vuelo-${entorno}`}>
                    {enVuelo(r, entorno)}
                  </td>
                </tr>
                {conservadasSinEnvio(r, entorno) > 0 ? (
                  <tr>
                    <td>{t('sync.conservadasSinEnvio')}</td>
                    <td className="col-num" data-testid={`sync-conservadas-${entorno}`}>
                      {conservadasSinEnvio(r, entorno)}
                    </td>
                  </tr>
                ) : null}
                <tr>
                  <td>{t('sync.rechazadosSinCorregir')}</td>
                  <td className="col-num" data-testid={`sync-rechazados-${entorno}`}>
                    {r?.rechazados[entorno] ?? 0}
                  </td>
                </tr>
              </tbody>
            </table>
            {r ? (
              <button type="button" data-testid={`sync-pause-${entorno}`} disabled={!admin} {...soloAdmin} onClick={() => void sync.pausa(entorno, !r.pausado[entorno])}>
                {r.pausado[entorno] ? t('sync.reanudar') : t('sync.pausar')}
              </button>
            ) : null}
            {r?.pausado[entorno] ? <span className="badge badge-rechazada"> {t('sync.pausado')}</span> : null}
          </div>
        ))}
      </section>

      {ensayo.length > 0 ? (
        <details className="ensayo" data-testid="sync-ensayo">
          <summary>{t('sync.ensayo')}</summary>
          <p className="hint">{t('sync.ensayoNota')}</p>
          <section className="cards">
            {ensayo.map((e) => {
              const f = sync.faults[e.id];
              const boton = (falla: Falla, testid: string, label: string) => (
                <button type="button" data-testid={`sync-${e.id}-${testid}`} onClick={() => void sync.falla(e.id, falla)}>
                  {label}
                </button>
              );
              return (
                <div key={e.id} className="card card-warn" data-testid={`sync-faults-${e.id}`} data-mode={f?.mode ?? ''} data-reject-next={f?.rejectNext?.count ?? 0}>
                  <h2>{t(`emulador.${e.id}`)}</h2>
                  <p>
                    {t('sync.estadoEmulador')}: <strong data-testid={`sync-fault-mode-${e.id}`}>{modo(f?.mode)}</strong>
                    {f?.rejectNext ? ` · ${t('sync.rechazaraSiguiente')}` : ''}
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
            })}
          </section>
        </details>
      ) : null}

      <section>
        <h2>{t('sync.colas')}</h2>
        <table className="grid" data-testid="sync-queues">
          <thead>
            <tr>
              <th>{t('sync.colaNombre')}</th>
              <th className="col-num">{t('sync.pendientes')}</th>
              <th>{t('sync.masAntiguo')}</th>
              <th>{t('sync.proximoIntento')}</th>
              <th className="col-num">{t('sync.fallos')}</th>
              <th>{t('sync.ultimoError')}</th>
            </tr>
          </thead>
          <tbody>
            {(r?.colas ?? []).map((c) => {
              const error = explainSendError(fmt.lang, c.ultimoError);
              return (
                <tr key={c.queueKey} data-testid="sync-queue" data-pendientes={c.pendientes}>
                  <td>{colaNombre(c)}</td>
                  <td className="col-num">{c.pendientes}</td>
                  <td>{c.masAntiguoEn ? fmt.age(c.masAntiguoEn, now) : '—'}</td>
                  <td>{c.pendientes > 0 ? fmt.dateTime(c.proximoIntentoEn) : '—'}</td>
                  <td className="col-num">{c.fallosSeguidos}</td>
                  <td className="small" title={error?.detalle} data-testid="sync-queue-error">
                    {c.bloqueo ? t('sync.bloqueo.enCola') : error && errorVigente(c) ? `${error.mensaje}${c.ultimoErrorEn ? ` (${fmt.dateTime(c.ultimoErrorEn)})` : ''}` : error ? t('sync.errorResuelto') : '—'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {r && r.colas.every((c) => c.pendientes === 0) ? (
          <p className="hint" data-testid="sync-vacia">
            {t(avisoSinPendientes(r, entornoActual), { n: rechazadosActual })}
          </p>
        ) : null}
      </section>

      {(r?.porDispositivo ?? []).length > 0 ? (
        <section>
          <h2>{t('sync.porCaja')}</h2>
          <table className="grid compact" data-testid="sync-por-caja">
            <thead>
              <tr>
                <th>{t('app.caja')}</th>
                <th>{t('app.emisor')}</th>
                <th>{t('ajustes.entorno')}</th>
                <th className="col-num">{t('sync.pendientes')}</th>
              </tr>
            </thead>
            <tbody>
              {(r?.porDispositivo ?? []).map((d) => (
                <tr key={`${d.entorno}-${d.nif}-${d.idMaquina ?? ''}`} data-testid="sync-caja" data-id-maquina={d.idMaquina ?? ''} data-pendientes={d.pendientes}>
                  <td>{d.idMaquina === null ? t('sync.sinCaja') : d.idMaquina === idMaquina ? t('sync.estaCaja', { caja: nombreCaja(d.idMaquina) }) : nombreCaja(d.idMaquina)}</td>
                  <td className="mono">{d.nif}</td>
                  <td>{t(`entorno.${d.entorno}`)}</td>
                  <td className="col-num">{d.pendientes}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}

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
            {sync.lotes.map((l) => {
              const error = explainSendError(fmt.lang, l.ultimoError);
              return (
                <tr key={l.idLote} data-testid="sync-batch" className={sync.lote?.idLote === l.idLote ? 'selected' : ''}>
                  <td>
                    <button type="button" className="link mono small" data-testid="sync-batch-id" title={l.idLote} onClick={() => void sync.openLote(l.idLote)}>
                      {idLoteCorto(l.idLote)}
                    </button>
                  </td>
                  <td>{fmt.dateTime(l.creadoEn)}</td>
                  <td className="col-num">{l.numRegistros}</td>
                  <td data-testid="sync-batch-estado">
                    {hasMessage(estadoLote(l)) ? t(estadoLote(l) as `lote.${string}`) : t('estado.desconocido')}
                    {l.estadoEnvio ? ` · ${hasMessage(`respuesta.${l.estadoEnvio}`) ? t(`respuesta.${l.estadoEnvio}`) : l.estadoEnvio}` : ''}
                    {l.incidencia ? ` · ${t('sync.incidencia')}` : ''}
                  </td>
                  <td className="mono small">{l.csv ?? '—'}</td>
                  <td className="small" title={error?.detalle}>
                    {error?.mensaje ?? '—'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {sync.lote ? (
          <div className="lote" data-testid="sync-batch-detail">
            <h3>
              {t('facturas.respuesta')} · <span className="mono">{sync.lote.idLote}</span>
            </h3>
            {/* The SOAP is for support: folded away as the technical detail. */}
            <details className="problem-detail" data-testid="sync-batch-xml">
              <summary>{t('error.detalle')}</summary>
              <pre className="xml">{sync.lote.respuesta ?? sync.lote.ultimoError ?? '—'}</pre>
            </details>
          </div>
        ) : null}
      </section>
    </div>
  );
}
