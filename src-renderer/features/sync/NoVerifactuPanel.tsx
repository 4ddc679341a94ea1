// The sync view of an issuer in «NO VERI*FACTU» mode: nothing is sent to the AEAT (no «pending»
// here means nothing is missing), records are signed and kept; the event log (type in words, time
// in the shop's zone, huella shortened, the signed XML folded as the technical detail) and
// «Detectar anomalías» with its result in words; exports and the AEAT's requirement (NoVerifactuRemision).
import { useEffect } from 'react';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useFormat, useSession, useT } from '../../app/session';
import { huellaCorta, tipoAnomaliaClave, tipoEventoClave, useNoVerifactu } from './no-verifactu-store';
import { NoVerifactuRemision } from './NoVerifactuRemision';

export function NoVerifactuPanel() {
  const t = useT();
  const fmt = useFormat();
  const emisor = useSession((s) => s.emisor);
  const entorno = useSession((s) => s.entorno);
  const nv = useNoVerifactu();
  const nif = emisor?.nif;
  useEffect(() => {
    if (nif) void useNoVerifactu.getState().cargar(nif, entorno);
    // Off screen (another issuer, another view): no refresh of this log after each mutation.
    return () => useNoVerifactu.setState({ nif: undefined, entorno: undefined });
  }, [nif, entorno]);
  if (!nif) return null;
  const d = nv.deteccion;
  return (
    <section className="card" aria-labelledby="sync-nv-titulo" data-testid="sync-no-verifactu" data-eventos={nv.eventos.length}>
      <h2 id="sync-nv-titulo">{t('noVerifactu.titulo')}</h2>
      <p data-testid="sync-no-verifactu-nota">{t('noVerifactu.nota')}</p>
      <ProblemBanner problem={nv.error} testid="sync-no-verifactu-error" />
      <p className="actions">
        <button type="button" data-testid="sync-anomalias" disabled={nv.detectando} onClick={() => void nv.detectar()}>
          {nv.detectando ? t('noVerifactu.detectando') : t('noVerifactu.detectar')}
        </button>
      </p>
      {d ? (
        <div role="status" className={`banner ${d.anomalias.length === 0 ? 'banner-ok' : 'banner-error'}`} data-testid="sync-anomalias-resultado" data-anomalias={d.anomalias.length}>
          <p>
            {d.anomalias.length === 0
              ? t('noVerifactu.sinAnomalias', { registros: d.registrosAnalizados, eventos: d.eventosAnalizados })
              : t('noVerifactu.conAnomalias', { n: d.anomalias.length, registros: d.registrosAnalizados, eventos: d.eventosAnalizados })}
          </p>
          {d.anomalias.length > 0 ? (
            <ul data-testid="sync-anomalias-lista">
              {d.anomalias.map((a, i) => (
                <li key={`${a.ambito}-${a.id}-${a.tipoAnomalia}-${i}`} data-testid="sync-anomalia" data-tipo={a.tipoAnomalia}>
                  {t(a.ambito === 'registro' ? 'noVerifactu.enRegistro' : 'noVerifactu.enEvento')}: {t(tipoAnomaliaClave(a.tipoAnomalia))}
                  <details className="problem-detail">
                    <summary>{t('error.detalle')}</summary>
                    <code className="mono small">
                      {a.tipoAnomalia} · {a.id} · {a.detalle}
                    </code>
                  </details>
                </li>
              ))}
            </ul>
          ) : null}
          <p className="small">{t('noVerifactu.anotadas')}</p>
        </div>
      ) : null}

      <NoVerifactuRemision />

      <h3>{t('noVerifactu.eventos', { n: nv.total })}</h3>
      <table className="grid compact" data-testid="sync-eventos">
        <thead>
          <tr>
            <th className="col-num">{t('noVerifactu.numero')}</th>
            <th>{t('noVerifactu.tipo')}</th>
            <th>{t('noVerifactu.fecha')}</th>
            <th>{t('noVerifactu.huella')}</th>
          </tr>
        </thead>
        <tbody>
          {nv.eventos.map((e) => (
            <tr key={e.idEvento} data-testid="sync-evento" data-tipo={e.tipoEvento}>
              <td className="col-num">{e.secuencia}</td>
              <td>{t(tipoEventoClave(e.tipoEvento))}</td>
              <td>{fmt.dateTime(e.fechaHoraHusoGenEvento)}</td>
              <td>
                <span className="mono small" title={e.huella}>
                  {huellaCorta(e.huella)}
                </span>
                <details className="problem-detail">
                  <summary>{t('error.detalle')}</summary>
                  <pre className="xml" aria-label={t('noVerifactu.xmlFirmado')}>
                    {e.xml}
                  </pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {nv.eventos.length === 0 && !nv.cargando ? <p className="hint">{t('noVerifactu.sinEventos')}</p> : null}
      {nv.proximaPagina ? (
        <button type="button" data-testid="sync-eventos-mas" disabled={nv.cargando} onClick={() => void nv.masEventos()}>
          {t('noVerifactu.masEventos')}
        </button>
      ) : null}
    </section>
  );
}
