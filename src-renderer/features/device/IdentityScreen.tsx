// First run of a browser till: which till is this? A new one (staff give it a name; the till
// makes up its identity) or one the engine already knows (chosen from its list). Asked once.
import { useEffect, useState } from 'react';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useFormat, useT } from '../../app/session';
import { useDevice } from './store';

export function IdentityScreen() {
  const t = useT();
  const fmt = useFormat();
  const device = useDevice();
  const [nombre, setNombre] = useState('');
  const [falta, setFalta] = useState(false);
  useEffect(() => {
    void useDevice.getState().load();
  }, []);
  const conocidas = device.lista?.dispositivos ?? [];

  const crear = () => {
    if (!nombre.trim()) {
      setFalta(true);
      return;
    }
    void device.registrarNueva(nombre);
  };

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
            aria-invalid={falta}
            aria-describedby={falta ? 'identity-nombre-falta' : undefined}
            onChange={(e) => {
              setNombre(e.target.value);
              setFalta(false);
            }}
          />
        </label>
        {falta ? (
          <p id="identity-nombre-falta" className="field-error" role="alert">
            {t('identidad.nombreFalta')}
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
              return (
                <li key={d.idMaquina}>
                  <button type="button" data-testid="identity-elegir" data-activo={String(d.activo)} disabled={device.busy} onClick={() => void device.elegir(d)}>
                    {t('identidad.usar', { nombre: nombreCaja })}
                  </button>
                  {d.activo ? null : <span className="small"> ({t('identidad.baja')})</span>}
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
