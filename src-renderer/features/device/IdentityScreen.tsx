// First run of a browser till: which till is this? A new one (staff give it a name; the till
// makes up its identity) or one the engine already knows (chosen from its list). Asked once.
import { useEffect, useState } from 'react';
import { ProblemBanner } from '../../app/ProblemBanner';
import { defaultSerie } from '../../app/serie';
import { useFormat, useT } from '../../app/session';
import { nombreLibre, nombreUsado, useDevice } from './store';

export function IdentityScreen() {
  const t = useT();
  const fmt = useFormat();
  const device = useDevice();
  const [nombre, setNombre] = useState('');
  const [falta, setFalta] = useState(false);
  /** A free name to offer when the one typed is taken by another active till. */
  const [sugerencia, setSugerencia] = useState<string | undefined>(undefined);
  useEffect(() => {
    void useDevice.getState().load();
  }, []);
  const conocidas = device.lista?.dispositivos ?? [];

  const crear = () => {
    if (!nombre.trim()) {
      setFalta(true);
      return;
    }
    // Two tills of one name cannot be told apart: say so, and offer a free name, before the engine refuses it.
    if (nombreUsado(conocidas, nombre)) {
      setSugerencia(nombreLibre(conocidas, nombre));
      return;
    }
    void device.registrarNueva(nombre);
  };
  const describedBy = [falta ? 'identity-nombre-falta' : '', sugerencia ? 'identity-sugerencia' : ''].filter(Boolean).join(' ') || undefined;

  return (
    <div className="splash identity" data-app-state="identify" data-testid="identity">
      <h1>{t('identidad.titulo')}</h1>
      <p>{t('identidad.pregunta')}</p>
      <ProblemBanner problem={device.error} testid="identity-error" />
      <form
        className="card"
        onSubmit={(e) => {
          e.preventDefault();
          crear();
        }}
      >
        <h2>{t('identidad.nueva')}</h2>
        <label>
          {t('identidad.nombre')}
          <input
            data-testid="identity-nombre"
            autoFocus
            maxLength={120}
            value={nombre}
            aria-invalid={falta || sugerencia !== undefined}
            aria-describedby={describedBy}
            onChange={(e) => {
              setNombre(e.target.value);
              setFalta(false);
              setSugerencia(undefined);
            }}
          />
        </label>
        {falta ? (
          <p id="identity-nombre-falta" className="field-error" role="alert">
            {t('identidad.nombreFalta')}
          </p>
        ) : null}
        {sugerencia ? (
          <p id="identity-sugerencia" className="field-error" role="alert" data-testid="identity-sugerencia">
            {t('identidad.sugerencia', { nombre: sugerencia })}{' '}
            <button
              type="button"
              className="link"
              data-testid="identity-usar-sugerencia"
              onClick={() => {
                setNombre(sugerencia);
                setSugerencia(undefined);
              }}
            >
              {sugerencia}
            </button>
          </p>
        ) : null}
        <button type="submit" className="primary" data-testid="identity-crear" disabled={device.busy}>
          {device.busy ? t('identidad.registrando') : t('identidad.crear')}
        </button>
      </form>
      {conocidas.length > 0 ? (
        <section className="card" data-testid="identity-existentes">
          <h2>{t('identidad.existentes')}</h2>
          <ul className="plain">
            {conocidas.map((d) => {
              const nombreCaja = d.etiqueta || t('identidad.sinNombre', { fecha: fmt.dateTime(d.creadoEn) });
              // What tells two tills apart at a glance: their series, their last sale, since when.
              const series = (device.lista?.series ?? []).filter((x) => x.idMaquinaPropietaria === d.idMaquina).map((x) => x.serie);
              const ultima = device.ultimasVentas[d.idMaquina] ?? device.lista?.idsMaquinaVistos.find((x) => x.idMaquina === d.idMaquina)?.ultimaVez;
              const rasgos = [
                t('identidad.serie', { serie: (series.length > 0 ? series : [defaultSerie(d.idMaquina)]).join(', ') }),
                ultima ? t('identidad.ultimaVenta', { cuando: fmt.dateTime(ultima) }) : t('identidad.sinVentas'),
                t('identidad.desde', { fecha: fmt.dateTime(d.creadoEn) }),
              ].filter(Boolean);
              return (
                <li key={d.idMaquina}>
                  <button
                    type="button"
                    data-testid="identity-elegir"
                    data-activo={String(d.activo)}
                    aria-describedby={`identity-rasgos-${d.idMaquina}`}
                    disabled={device.busy}
                    onClick={() => void device.elegir(d)}
                  >
                    {t('identidad.usar', { nombre: nombreCaja })}
                  </button>{' '}
                  <span className="small" id={`identity-rasgos-${d.idMaquina}`} data-testid="identity-rasgos">
                    {rasgos.join(' · ')}
                    {d.activo ? null : ` (${t('identidad.baja')})`}
                  </span>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
