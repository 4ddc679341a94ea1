// «NO VERI*FACTU» in the sync view, for the administrator: export the invoices and events of a
// period (the files downloaded from here) and send them when the AEAT requires them (its reference,
// a confirmation, the answer in words with the AEAT's receipt; the raw fault folded as the
// technical detail). A till's own credential sees the controls disabled with the reason.
import { useState } from 'react';
import { confirmar } from '../../app/ConfirmDialog';
import { DateField } from '../../app/DateField';
import { useEsAdministrador } from '../../app/rol';
import { useFormat, useT } from '../../app/session';
import { fechaParaTeclear } from '../../i18n/format';
import { todayInMadrid } from '../../platform/dates';
import { periodoDeDias, REFERENCIA_REQUERIMIENTO, useNoVerifactu } from './no-verifactu-store';

/** dd-mm-aaaa → aaaa-mm-dd (a date field's value). */
function diaIso(ddmmaaaa: string): string {
  const [d, m, a] = ddmmaaaa.split('-');
  return `${a}-${m}-${d}`;
}

/** Saves a text as a file the browser downloads. */
function descargar(nombre: string, texto: string): void {
  const url = URL.createObjectURL(new Blob([texto], { type: 'application/x-ndjson' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = nombre;
  a.click();
  URL.revokeObjectURL(url);
}

export function NoVerifactuRemision() {
  const t = useT();
  const fmt = useFormat();
  const admin = useEsAdministrador();
  const nv = useNoVerifactu();
  const hoy = diaIso(todayInMadrid());
  const [desde, setDesde] = useState(`${hoy.slice(0, 8)}01`);
  const [hasta, setHasta] = useState(hoy);
  const [ref, setRef] = useState('');
  const periodo = periodoDeDias(desde, hasta);
  const refValida = REFERENCIA_REQUERIMIENTO.test(ref);
  const soloAdmin = admin ? {} : { title: t('error.soloAdministrador'), 'aria-describedby': 'sync-solo-admin' };
  const ex = nv.exportacion;
  const rq = nv.requerimiento;
  const rehusado = rq?.envios.some((e) => e.fault !== undefined) === true;

  const remitir = async () => {
    if (!periodo || !refValida) return;
    const ok = await confirmar(t('noVerifactu.confirmarRemision', { desde: fechaParaTeclear(desde), hasta: fechaParaTeclear(hasta), ref }));
    if (ok) await nv.remitir(ref, periodo);
  };
  const bajar = async (nombre: string) => {
    const texto = await nv.fichero(nombre);
    if (texto !== undefined) descargar(nombre, texto);
  };

  return (
    <div data-testid="sync-remision">
      <h3>{t('noVerifactu.remision')}</h3>
      <p className="hint">{t('noVerifactu.remisionNota')}</p>
      <div className="actions">
        <DateField label={t('noVerifactu.desde')} value={desde} testid="sync-remision-desde" onChange={setDesde} />
        <DateField label={t('noVerifactu.hasta')} value={hasta} testid="sync-remision-hasta" onChange={setHasta} />
      </div>
      {periodo || desde === '' || hasta === '' ? null : (
        <p className="field-error" role="alert" data-testid="sync-remision-periodo-error">
          {t('noVerifactu.periodoInvalido')}
        </p>
      )}
      <p className="actions">
        <button type="button" data-testid="sync-exportar" disabled={!admin || !periodo || nv.exportando} {...soloAdmin} onClick={() => periodo && void nv.exportar(periodo)}>
          {nv.exportando ? t('noVerifactu.exportando') : t('noVerifactu.exportar')}
        </button>
      </p>
      {ex ? (
        <div role="status" className="banner banner-ok" data-testid="sync-exportacion-resultado">
          <p>
            {t('noVerifactu.exportado', {
              altas: ex.registros.altas,
              anulaciones: ex.registros.anulaciones,
              importe: `${fmt.money(ex.registros.sumaImporteTotalAlta)} €`,
              eventos: ex.eventos?.numero ?? 0,
            })}
          </p>
          <p className="actions">
            <button type="button" data-testid="sync-descargar-facturas" onClick={() => void bajar(ex.registros.fichero)}>
              {t('noVerifactu.descargarFacturas')}
            </button>
            {ex.eventos ? (
              <button type="button" data-testid="sync-descargar-eventos" onClick={() => ex.eventos && void bajar(ex.eventos.fichero)}>
                {t('noVerifactu.descargarEventos')}
              </button>
            ) : null}
          </p>
          <p className="small">{t('noVerifactu.anotadas')}</p>
        </div>
      ) : null}

      <div className="actions">
        <label>
          {t('noVerifactu.referencia')}
          <input
            data-testid="sync-requerimiento-ref"
            value={ref}
            maxLength={18}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={ref !== '' && !refValida}
            aria-describedby="sync-requerimiento-ayuda"
            onChange={(e) => setRef(e.target.value.trim())}
          />
        </label>
      </div>
      <p className={ref !== '' && !refValida ? 'field-error' : 'hint'} id="sync-requerimiento-ayuda" data-testid="sync-requerimiento-ayuda">
        {ref !== '' && !refValida ? t('noVerifactu.referenciaInvalida') : t('noVerifactu.referenciaAyuda')}
      </p>
      <p className="actions">
        <button type="button" data-testid="sync-remitir" disabled={!admin || !periodo || !refValida || nv.remitiendo} {...soloAdmin} onClick={() => void remitir()}>
          {nv.remitiendo ? t('noVerifactu.remitiendo') : t('noVerifactu.remitir')}
        </button>
      </p>
      {rq ? (
        <div role="status" className={`banner ${rehusado ? 'banner-error' : 'banner-ok'}`} data-testid="sync-requerimiento-resultado" data-rehusado={rehusado}>
          <p>
            {rehusado
              ? t('noVerifactu.remisionRehusada', { registros: rq.registros })
              : t('noVerifactu.remitido', {
                  registros: rq.registros,
                  ref: rq.refRequerimiento,
                  correctos: rq.envios.reduce((n, e) => n + e.correctos, 0),
                  conErrores: rq.envios.reduce((n, e) => n + e.aceptadosConErrores, 0),
                  incorrectos: rq.envios.reduce((n, e) => n + e.incorrectos, 0),
                })}
          </p>
          {rq.envios
            .filter((e) => e.csv !== undefined)
            .map((e) => (
              <p key={e.csv} className="mono small" data-testid="sync-requerimiento-csv">
                {t('noVerifactu.justificante', { csv: e.csv ?? '' })}
              </p>
            ))}
          {rehusado ? (
            <details className="problem-detail">
              <summary>{t('error.detalle')}</summary>
              <code className="mono small">{rq.envios.map((e) => e.fault ?? e.estadoEnvio).join(' · ')}</code>
            </details>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
