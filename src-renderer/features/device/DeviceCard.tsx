// Ajustes → Dispositivo: the till as the engine knows it, in words staff understand — its name,
// whether it is registered, the issuer's phase and chain mode, the installation number, its
// series, and the chain it writes to (length and last huella).
import { useEffect } from 'react';
import { ProblemBanner } from '../../app/ProblemBanner';
import { useSession, useT } from '../../app/session';
import { useDevice } from './store';

export function DeviceCard() {
  const t = useT();
  const idMaquina = useSession((s) => s.idMaquina);
  const etiqueta = useSession((s) => s.etiqueta);
  const serie = useSession((s) => s.settings.serie);
  const entorno = useSession((s) => s.entorno);
  const emisor = useSession((s) => s.emisor);
  const device = useDevice();
  useEffect(() => {
    void useDevice.getState().load();
  }, [idMaquina, entorno, emisor?.nif]);
  const lista = device.lista;
  const propio = lista?.dispositivos.find((d) => d.idMaquina === idMaquina);
  const series = [serie, ...(lista?.series ?? []).filter((x) => x.idMaquinaPropietaria === idMaquina && x.serie !== serie).map((x) => x.serie)];
  const cadena = device.cadena;
  return (
    <div data-testid="device-card">
      <ProblemBanner problem={device.error} testid="device-error" />
      <dl className="facts">
        <dt>{t('dispositivo.nombre')}</dt>
        <dd data-testid="device-nombre">{propio?.etiqueta || etiqueta || '—'}</dd>
        <dt>{t('ajustes.identidad')}</dt>
        <dd className="mono" data-testid="settings-idmaquina">
          {idMaquina}
        </dd>
        <dt>{t('dispositivo.estado')}</dt>
        <dd data-testid="device-estado">{propio ? (propio.activo ? t('dispositivo.activo') : t('dispositivo.baja')) : lista ? t('dispositivo.noRegistrada') : '—'}</dd>
        {lista ? (
          <>
            <dt>{t('dispositivo.fase')}</dt>
            <dd data-testid="device-fase">{t(`fase.${lista.faseAltaCapacidad}`)}</dd>
            <dt>{t('dispositivo.modo')}</dt>
            <dd data-testid="device-modo">{t(`modoCadena.${lista.modoCadena}`)}</dd>
          </>
        ) : null}
        <dt>{t('dispositivo.instalacion')}</dt>
        <dd data-testid="device-instalacion">{propio?.numeroInstalacion ?? t('dispositivo.instalacionPendiente')}</dd>
        <dt>{t('dispositivo.series')}</dt>
        <dd className="mono" data-testid="device-series">
          {series.join(' · ')}
        </dd>
        {cadena ? (
          <>
            <dt>{t('dispositivo.cadena')}</dt>
            <dd data-testid="device-cadena" data-propia={String(cadena.propia)} data-longitud={cadena.longitud}>
              {cadena.propia ? t('dispositivo.cadenaPropia', { n: cadena.longitud }) : t('dispositivo.cadenaEmisor', { n: cadena.longitud })}
            </dd>
            <dt>{t('dispositivo.ultimaHuella')}</dt>
            <dd className="mono small" data-testid="device-huella" title={cadena.ultimaHuella ?? undefined}>
              {cadena.ultimaHuella ? `${cadena.ultimaHuella.slice(0, 16)}…` : t('dispositivo.sinHuella')}
            </dd>
          </>
        ) : null}
      </dl>
    </div>
  );
}
