// «Cajas de la tienda» (administrator only): the shop server's tills with their own credential,
// add one (its engine.json shown once, to copy to that till) and revoke one (confirmed).
import { useEffect, useRef, useState } from 'react';
import { confirmar } from '../../app/ConfirmDialog';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useFormat, useT } from '../../app/session';
import { DISPOSITIVO, engineJsonTexto, ETIQUETA_MAX, nombreCajaTienda, useTills } from './tills-store';

export function TillsPanel() {
  const t = useT();
  const fmt = useFormat();
  const tills = useTills();
  const [etiqueta, setEtiqueta] = useState('');
  const [copiado, setCopiado] = useState(false);
  const jsonRef = useRef<HTMLTextAreaElement | null>(null);
  useEffect(() => {
    void useTills.getState().cargar();
  }, []);
  // The engine.json appears: focus it, selected, so Ctrl+C copies it at once.
  useEffect(() => {
    if (tills.nueva && jsonRef.current) {
      jsonRef.current.focus();
      jsonRef.current.select();
    }
  }, [tills.nueva]);
  const limpia = etiqueta.trim();
  const valida = limpia !== '' && limpia.length <= ETIQUETA_MAX;
  const anadir = async () => {
    if (!valida) return;
    setCopiado(false);
    if (await tills.anadir(limpia)) setEtiqueta('');
  };
  const copiar = async (texto: string) => {
    try {
      await navigator.clipboard.writeText(texto);
      setCopiado(true);
    } catch {
      // No clipboard (permissions): the text stays selected for Ctrl+C.
      jsonRef.current?.select();
    }
  };
  const activas = (tills.cajas ?? []).filter((c) => c.revocadoEn === null);
  const revocadas = (tills.cajas ?? []).filter((c) => c.revocadoEn !== null);

  return (
    <section aria-labelledby="cajas-titulo" data-testid="settings-cajas">
      <h2 id="cajas-titulo">{t('cajas.titulo')}</h2>
      <p className="hint">{t('cajas.nota')}</p>
      <ProblemBanner problem={tills.error} testid="cajas-error" />
      <form
        className="actions"
        onSubmit={(e) => {
          e.preventDefault();
          void anadir();
        }}
      >
        <label>
          {t('cajas.etiqueta')}
          <input data-testid="cajas-etiqueta" value={etiqueta} maxLength={ETIQUETA_MAX} aria-invalid={etiqueta !== '' && !valida} onChange={(e) => setEtiqueta(e.target.value)} />
        </label>
        <button type="submit" className="primary" data-testid="cajas-anadir" disabled={!valida || tills.busy}>
          {t('cajas.anadir')}
        </button>
      </form>

      {tills.nueva ? (
        <div className="card card-warn" role="region" aria-labelledby="cajas-nueva-titulo" data-testid="cajas-nueva">
          <h3 id="cajas-nueva-titulo">{t('cajas.nuevaTitulo', { caja: nombreCajaTienda(tills.nueva) })}</h3>
          <p id="cajas-nueva-nota">
            <strong>{t('cajas.unaVez')}</strong> {t('cajas.copiarA')}
          </p>
          <label>
            engine.json
            <textarea ref={jsonRef} className="mono small" readOnly rows={8} aria-describedby="cajas-nueva-nota" data-testid="cajas-engine-json" value={engineJsonTexto(tills.nueva)} />
          </label>
          <ul className="plain small">
            <li>
              {t('entorno.test')}: {t(DISPOSITIVO[tills.nueva.dispositivo.test])}
            </li>
            <li>
              {t('entorno.live')}: {t(DISPOSITIVO[tills.nueva.dispositivo.live])}
            </li>
          </ul>
          <p className="actions">
            <button type="button" data-testid="cajas-copiar" onClick={() => void copiar(engineJsonTexto(tills.nueva ?? { engineJson: {} }))}>
              {t('cajas.copiar')}
            </button>
            <button type="button" data-testid="cajas-hecho" onClick={() => tills.olvidarNueva()}>
              {t('cajas.hecho')}
            </button>
            {copiado ? (
              <span role="status" className="small">
                {t('cajas.copiado')}
              </span>
            ) : null}
          </p>
        </div>
      ) : null}

      <table className="grid" data-testid="cajas-lista">
        <thead>
          <tr>
            <th>{t('cajas.etiqueta')}</th>
            <th>{t('cajas.idMaquina')}</th>
            <th>{t('app.emisor')}</th>
            <th>{t('cajas.alta')}</th>
            <th>{t('facturas.estado')}</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {[...activas, ...revocadas].map((c) => (
            <tr key={c.idCredencial} data-testid="cajas-caja" data-id-maquina={c.idMaquina} data-revocada={String(c.revocadoEn !== null)}>
              <td>{nombreCajaTienda(c)}</td>
              <td className="mono small">{c.idMaquina}</td>
              <td className="mono">{c.nifEmisor}</td>
              <td>{fmt.dateTime(c.creadoEn)}</td>
              <td>{c.revocadoEn ? t('cajas.revocadaEn', { cuando: fmt.dateTime(c.revocadoEn) }) : t('cajas.activa')}</td>
              <td>
                {c.revocadoEn ? null : (
                  <button
                    type="button"
                    data-testid="cajas-revocar"
                    aria-label={t('cajas.revocarCaja', { caja: nombreCajaTienda(c) })}
                    disabled={tills.busy}
                    onClick={() => {
                      void (async () => {
                        if (await confirmar(t('cajas.revocarPregunta', { caja: nombreCajaTienda(c) }))) await tills.revocar(c.idMaquina);
                      })();
                    }}
                  >
                    {t('cajas.revocar')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tills.cajas && tills.cajas.length === 0 ? <p className="hint">{t('cajas.ninguna')}</p> : null}
    </section>
  );
}
