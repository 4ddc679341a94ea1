// The answer of «Verificar cadenas» in the staff's words: all correct, or each problem named
// (broken, forked, dangling link, bad signature, out of chain) with the invoice it is about.
import { useFormat, useT } from '../../app/session';
import { hasMessage } from '../../i18n';
import { useNombreCaja } from '../device/names';
import { useSync } from './store';

export function ChainCheck() {
  const t = useT();
  const fmt = useFormat();
  const v = useSync((s) => s.verificacion);
  const nombreCaja = useNombreCaja();
  if (!v) return null;
  const registros = v.cadenas.reduce((n, c) => n + c.registros, 0);
  const cadena = (clave: string) => v.cadenas.find((c) => c.clave === clave);
  const nombre = (clave: string) => {
    const c = cadena(clave);
    if (!c) return t('sync.cadena');
    const sistema = hasMessage(`sistema.${c.sistemaFiscal}`) ? t(`sistema.${c.sistemaFiscal}`) : c.sistemaFiscal;
    const entorno = hasMessage(`entorno.${c.entorno}`) ? t(`entorno.${c.entorno}`) : c.entorno;
    return `${sistema} · ${entorno} · NIF ${c.nif}${c.idMaquina ? ` · ${t('sync.caja', { caja: nombreCaja(c.idMaquina) })}` : ''}`;
  };
  return (
    <section className={`card ${v.correcto ? 'card-ok' : 'card-warn'}`} data-testid="sync-cadenas" data-correcto={String(v.correcto)} aria-live="polite">
      <p data-testid="sync-cadenas-resumen" role="status">
        <strong>
          {v.correcto ? t('sync.cadenasCorrectas', { cadenas: t('sync.nCadenas', { n: v.cadenas.length }), registros: t('sync.nRegistros', { n: registros }) }) : t('sync.cadenasProblemas', { n: v.problemas.length })}
        </strong>{' '}
        <span className="small">{t('sync.verificadoEn', { cuando: fmt.dateTime(v.verificadoEn) })}</span>
      </p>
      <table className="grid compact" data-testid="sync-cadenas-lista">
        <thead>
          <tr>
            <th>{t('sync.cadena')}</th>
            <th className="col-num">{t('sync.registros')}</th>
            <th>{t('facturas.estado')}</th>
          </tr>
        </thead>
        <tbody>
          {v.cadenas.map((c) => (
            <tr key={c.clave} data-testid="sync-cadena" data-correcta={String(c.correcta)}>
              <td>{nombre(c.clave)}</td>
              <td className="col-num">{c.registros}</td>
              <td className={c.correcta ? 'ok' : 'bad'}>{c.correcta ? t('sync.cadenaCorrecta') : t('sync.cadenaIncorrecta')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {v.problemas.length > 0 ? (
        <ul className="plain" data-testid="sync-cadenas-problemas">
          {v.problemas.map((p) => (
            <li key={`${p.clave}-${p.idRegistro}-${p.tipo}`} data-testid="sync-cadena-problema" data-tipo={p.tipo}>
              <strong>{t(`problema.${p.tipo}`)}</strong> — {t('resultado.factura')} {p.serie}
              {p.numero} · {nombre(p.clave)}
              {p.esperado || p.encontrado ? (
                <details className="problem-detail">
                  <summary>{t('error.detalle')}</summary>
                  <code className="mono small">
                    {[p.esperado ? t('sync.esperado', { v: p.esperado }) : '', p.encontrado ? t('sync.encontrado', { v: p.encontrado }) : ''].filter(Boolean).join(' · ')}
                  </code>
                </details>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
