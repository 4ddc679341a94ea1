// Settings and support: language, environment, this till's series and paper, the issuers, the
// till's keys (only their ending), the device, webhooks, data folder and log.
import { useEffect, useState } from 'react';
import { clientesListResponseSchema, type ClientesListResponse } from '../../../src-shared/api/clientes';
import { webhooksListResponse } from '../../../src-shared/api/webhooks';
import { z } from 'zod';
import type { Problem } from '../../api/problems';
import { ProblemBanner } from '../../app/ProblemBanner';
import { IDIOMAS_TICKET, useSession, useT, type IdiomaTicket } from '../../app/session';
import { hasMessage, LANGS, type Lang } from '../../i18n';
import { TIME_ZONES } from '../../i18n/format';
import { DeviceCard } from '../device/DeviceCard';
import { useEsAdministrador } from '../../app/rol';
import { TillsPanel } from './TillsPanel';
import { modoSifClave } from './modo-sif';

type Webhooks = z.infer<typeof webhooksListResponse>['webhooks'];

const LANG_NAMES: Record<Lang, string> = { es: 'Español', eu: 'Euskara', en: 'English' };

const nuevaClaveSchema = z.object({ entorno: z.string(), clave: z.string() });

/** The engine sends only each key's ending (`…abcd`): the keys never reach the page. */
function mask(ending: string | undefined): string {
  return ending ?? '—';
}

export function SettingsScreen() {
  const t = useT();
  const s = useSession();
  // A till's own credential: the administrator's controls are disabled, with the reason beside them.
  const admin = useEsAdministrador();
  const soloAdmin = admin ? {} : { title: t('error.soloAdministrador'), 'aria-describedby': 'settings-solo-admin' };
  const [clientes, setClientes] = useState<ClientesListResponse | undefined>();
  const [webhooks, setWebhooks] = useState<Webhooks | undefined>();
  const [error, setError] = useState<Problem | undefined>();
  const [serie, setSerie] = useState(s.settings.serie);
  const [nuevaClave, setNuevaClave] = useState<{ entorno: string; clave: string } | undefined>();

  const crearClave = async (entorno: 'test' | 'live') => {
    if (!s.client) return;
    try {
      const created = await s.client.panel.post('/panel/v1/claves', { entorno }, nuevaClaveSchema);
      setNuevaClave({ entorno: created.entorno, clave: created.clave });
    } catch (e) {
      setError(s.problem(e));
    }
  };

  const exportarRegistro = async () => {
    if (!s.client) return;
    try {
      const text = await s.client.panelText('/panel/v1/registro');
      const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = 'engine.log';
      a.click();
      URL.revokeObjectURL(url);
    } catch (e) {
      setError(s.problem(e));
    }
  };

  useEffect(() => {
    const client = s.client;
    if (!client) return;
    client.manage.get('/v1/clientes', clientesListResponseSchema).then(setClientes, (e: unknown) => setError(useSession.getState().problem(e)));
    client.manage.get('/v1/webhooks', webhooksListResponse).then((r) => setWebhooks(r.webhooks), () => setWebhooks(undefined));
  }, [s.client, s.entorno]);

  const serieValida = /^[\x21-\x7E]{1,20}$/.test(serie);
  const carpeta = s.appInfo?.carpetaDatos ?? s.arranque?.carpetaDatos;
  const log = s.appInfo?.archivoLog ?? (carpeta ? `${carpeta}/logs/engine.log` : undefined);

  return (
    <div className="settings" data-testid="screen-ajustes">
      <h1>{t('ajustes.titulo')}</h1>
      <ProblemBanner problem={error} testid="settings-error" />
      {admin ? null : (
        <p className="hint" id="settings-solo-admin" data-testid="settings-solo-admin">
          {t('rol.cajaAjustes')}
        </p>
      )}
      <section className="cards">
        <div className="card">
          <h2>{t('app.caja')}</h2>
          <label>
            {t('ajustes.idioma')}
            <select data-testid="settings-lang" value={s.lang} onChange={(e) => s.setLang(e.target.value as Lang)}>
              {LANGS.map((l) => (
                <option key={l} value={l}>
                  {LANG_NAMES[l]}
                </option>
              ))}
            </select>
          </label>
          <label>
            {t('ajustes.entorno')}
            <select data-testid="settings-entorno" value={s.entorno} onChange={(e) => void s.setEntorno(e.target.value === 'live' ? 'live' : 'test')}>
              <option value="test">{t('entorno.test')}</option>
              <option value="live">{t('entorno.live')}</option>
            </select>
          </label>
          <label>
            {t('ajustes.serie')}
            <input
              data-testid="settings-serie"
              value={serie}
              aria-invalid={!serieValida}
              onChange={(e) => setSerie(e.target.value)}
              onBlur={() => serieValida && s.updateSettings({ serie })}
              onKeyDown={(e) => e.key === 'Enter' && serieValida && s.updateSettings({ serie })}
            />
          </label>
          <label>
            {t('ajustes.ancho')}
            <select value={s.settings.ancho} onChange={(e) => s.updateSettings({ ancho: e.target.value === '58' ? 58 : 80 })}>
              <option value={80}>80 mm</option>
              <option value={58}>58 mm</option>
            </select>
          </label>
          <label className="check">
            <input type="checkbox" checked={s.settings.imprimirAlCobrar} onChange={(e) => s.updateSettings({ imprimirAlCobrar: e.target.checked })} />
            {t('ajustes.imprimirAlCobrar')}
          </label>
          <label>
            {t('ajustes.idiomaTicket')}
            <select
              data-testid="settings-idioma-ticket"
              aria-describedby="settings-idioma-ticket-nota"
              value={s.settings.idiomaTicket}
              onChange={(e) => s.updateSettings({ idiomaTicket: e.target.value as IdiomaTicket })}
            >
              {IDIOMAS_TICKET.map((i) => (
                <option key={i} value={i}>
                  {t(`ticket.${i}`)}
                </option>
              ))}
            </select>
          </label>
          <p className="hint" id="settings-idioma-ticket-nota">
            {t('ajustes.idiomaTicketNota')}
          </p>
          <label>
            {t('ajustes.zonaHoraria')}
            <select data-testid="settings-zona" value={s.settings.zonaHoraria} onChange={(e) => s.updateSettings({ zonaHoraria: e.target.value })}>
              {TIME_ZONES.map((z) => (
                <option key={z} value={z}>
                  {t(`zona.${z}`)}
                </option>
              ))}
            </select>
          </label>
        </div>

        <div className="card" data-testid="settings-device">
          <h2>{t('ajustes.dispositivo')}</h2>
          <DeviceCard />
          <dl className="facts">
            {s.deviceInfo ? (
              <>
                <dt>{t('ajustes.impresora')}</dt>
                <dd>
                  {s.deviceInfo.impresora.nombre} ({t(`impresora.${s.deviceInfo.impresora.tipo}`)}, {s.deviceInfo.impresora.ancho} mm)
                </dd>
              </>
            ) : null}
            <dt>{t('ajustes.carpetaDatos')}</dt>
            <dd className="mono small" data-testid="settings-datadir">{carpeta ?? '—'}</dd>
            <dt>{t('ajustes.log')}</dt>
            <dd className="mono small">
              {log ?? '—'}{' '}
              <button type="button" data-testid="settings-export-log" disabled={!admin} {...soloAdmin} onClick={() => void exportarRegistro()}>
                {t('ajustes.exportarLog')}
              </button>
            </dd>
            {s.appInfo ? (
              <>
                <dt>{t('ajustes.version')}</dt>
                <dd>
                  {s.appInfo.version} (Electron {s.appInfo.electron})
                </dd>
              </>
            ) : null}
          </dl>
        </div>

        <div className="card">
          <h2>{t('ajustes.claves')}</h2>
          <dl className="facts">
            <dt>{t('entorno.test')}</dt>
            <dd className="mono">{mask(s.arranque?.clavesFinal.test)}</dd>
            <dt>{t('entorno.live')}</dt>
            <dd className="mono">{mask(s.arranque?.clavesFinal.live)}</dd>
          </dl>
          <p className="hint">{t('ajustes.clavesNota')}</p>
          <p>
            <button type="button" data-testid="settings-new-key-test" disabled={!admin} {...soloAdmin} onClick={() => void crearClave('test')}>
              {t('ajustes.nuevaClaveTest')}
            </button>{' '}
            <button type="button" data-testid="settings-new-key-live" disabled={!admin} {...soloAdmin} onClick={() => void crearClave('live')}>
              {t('ajustes.nuevaClaveLive')}
            </button>
          </p>
          {nuevaClave ? (
            <p data-testid="settings-new-key">
              <code className="mono">{nuevaClave.clave}</code> — {t('ajustes.nuevaClaveNota')}
            </p>
          ) : null}
        </div>
      </section>

      <section>
        <h2>{t('ajustes.emisores')}</h2>
        <table className="grid" data-testid="settings-issuers">
          <thead>
            <tr>
              <th>NIF</th>
              <th>{t('venta.clienteNombre')}</th>
              <th>{t('app.regimen')}</th>
              <th>{t('facturas.estado')}</th>
              <th>{t('ajustes.modoSif')}</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {(clientes?.clientes ?? []).map((c) => (
              <tr key={c.nif}>
                <td className="mono">{c.nif}</td>
                <td>{c.nombre}</td>
                <td>{t(`regimen.${c.hacienda}`)}</td>
                <td>{hasMessage(`cliente.${c.estado}`) ? t(`cliente.${c.estado}`) : c.estado}</td>
                <td data-testid="settings-modo-sif" data-modo={c.modoSif ?? ''}>
                  {t(modoSifClave(c.modoSif))}
                </td>
                <td>
                  {s.emisor?.nif === c.nif ? (
                    <strong>{t('ajustes.enUso')}</strong>
                  ) : (
                    <button type="button" onClick={() => void s.setEmisor(c.nif)}>
                      {t('ajustes.usar')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="hint">{t('ajustes.modoSifNota')}</p>
      </section>

      {admin ? <TillsPanel /> : null}

      <section>
        <h2>{t('ajustes.webhooks')}</h2>
        {webhooks && webhooks.length > 0 ? (
          <ul className="plain">
            {webhooks.map((w) => (
              <li key={w.idWebhook}>
                <strong>{w.nombre}</strong> · <span className="mono small">{w.url}</span> · {hasMessage(`webhook.${w.estado}`) ? t(`webhook.${w.estado}`) : w.estado}
              </li>
            ))}
          </ul>
        ) : (
          <p className="hint">{t('ajustes.ninguno')}</p>
        )}
      </section>
    </div>
  );
}
