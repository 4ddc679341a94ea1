// The till shell: header (issuer, regime, environment, till), navigation (Alt+1…4) and screens.
// `data-app-state` on the root is the app-ready marker end-to-end tests wait for.
import { useEffect } from 'react';
import { InvoicesScreen } from '../features/invoices/InvoicesScreen';
import { SaleScreen } from '../features/sale/SaleScreen';
import { useSale } from '../features/sale/store';
import { ConfirmDialog } from './ConfirmDialog';
import { SettingsScreen } from '../features/settings/SettingsScreen';
import { IdentityScreen } from '../features/device/IdentityScreen';
import { useDevice } from '../features/device/store';
import { useSync } from '../features/sync/store';
import { SyncScreen } from '../features/sync/SyncScreen';
import { SCREENS, useSession, useT, type Screen } from './session';

const NAV: Record<Screen, 'nav.venta' | 'nav.facturas' | 'nav.sync' | 'nav.ajustes'> = {
  venta: 'nav.venta',
  facturas: 'nav.facturas',
  sync: 'nav.sync',
  ajustes: 'nav.ajustes',
};

export function App() {
  const t = useT();
  const state = useSession((s) => s.state);
  const error = useSession((s) => s.error);
  const screen = useSession((s) => s.screen);
  const emisor = useSession((s) => s.emisor);
  const entorno = useSession((s) => s.entorno);
  const idMaquina = useSession((s) => s.idMaquina);
  const etiqueta = useSession((s) => s.etiqueta);
  const setScreen = useSession((s) => s.setScreen);
  const liveEnEmulador = useSession((s) => s.arranque?.liveEnEmulador === true);

  // Away from the sync view (which polls every second), the authorities' reachability is read
  // every few seconds so the sale screen can say when one is unreachable.
  // The probe (GET /panel/v1/sync/alcance) says it before the first send fails, on every screen.
  useEffect(() => {
    if (state !== 'ready') return;
    const tick = () => {
      void useSync.getState().refreshAlcance();
      if (screen !== 'sync') void useSync.getState().refresh();
    };
    tick();
    const timer = setInterval(tick, 3000);
    return () => clearInterval(timer);
  }, [state, screen, entorno]);

  // The sale being built before a reload, a crashed tab or a restart: back where it was.
  useEffect(() => {
    if (state === 'ready' && idMaquina) useSale.getState().restore();
  }, [state, idMaquina]);

  // Once the till knows which till it is (and again per environment): registered with the engine,
  // reactivated if it was deactivated; silently — selling never waits for it.
  useEffect(() => {
    if (state === 'ready') void useDevice.getState().asegurar();
  }, [state, entorno, emisor?.nif]);

  useEffect(() => {
    void useSession.getState().boot();
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && !e.ctrlKey && /^[1-4]$/.test(e.key)) {
        e.preventDefault();
        const next = SCREENS[Number(e.key) - 1];
        if (next) useSession.getState().setScreen(next);
      }
    };
    const onHash = () => {
      const name = window.location.hash.replace(/^#\/?/, '');
      if ((SCREENS as readonly string[]).includes(name)) useSession.getState().setScreen(name as Screen);
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('hashchange', onHash);
    };
  }, []);

  if (state === 'identify') return <IdentityScreen />;

  if (state !== 'ready') {
    return (
      <div className="splash" data-app-state={state}>
        <h1>{t('app.titulo')}</h1>
        {state === 'loading' ? <p>{t('app.cargando')}</p> : null}
        {state === 'error' ? (
          <>
            <p className="banner banner-error" role="alert" data-testid="boot-error">
              {error}
            </p>
            <button type="button" onClick={() => void useSession.getState().boot()}>
              {t('app.reintentar')}
            </button>
          </>
        ) : null}
      </div>
    );
  }

  return (
    <div className={`shell entorno-${entorno}`} data-app-state="ready" data-screen={screen}>
      <header className="topbar no-print">
        <strong className="brand">{t('app.titulo')}</strong>
        <nav>
          {SCREENS.map((s, i) => (
            <button key={s} type="button" data-testid={`nav-${s}`} className={s === screen ? 'on' : ''} title={`Alt+${i + 1}`} onClick={() => setScreen(s)}>
              {t(NAV[s])}
            </button>
          ))}
        </nav>
        <div className="who">
          <span className={`badge entorno entorno-${entorno}`} data-testid="entorno">
            {t(`entorno.${entorno}`)}
          </span>
          <span title={t('app.emisor')}>
            {emisor ? `${emisor.nombre} · ${emisor.nif}` : '—'} · {emisor ? t(`regimen.${emisor.hacienda}`) : ''}
          </span>
          <span className="small" title={t('app.caja')} data-testid="caja">
            {etiqueta || t('app.caja')}
          </span>
        </div>
      </header>
      {entorno === 'live' && liveEnEmulador ? (
        <p className="banner banner-error no-print" role="alert" data-testid="live-en-emulador">
          {t('app.liveEnEmulador')}
        </p>
      ) : null}
      <main>
        {screen === 'venta' ? <SaleScreen /> : null}
        {screen === 'facturas' ? <InvoicesScreen /> : null}
        {screen === 'sync' ? <SyncScreen /> : null}
        {screen === 'ajustes' ? <SettingsScreen /> : null}
      </main>
      <footer className="hint keys no-print">{t('app.atajos')}</footer>
      <ConfirmDialog />
    </div>
  );
}
