// The till session: token, environment, issuer, device, language and screen. Boot reads the token
// from `?token=` (headless UI) or the preload bridge (Electron), then asks the panel what it needs.
import { create } from 'zustand';
import { clienteEnvelopeSchema } from '../../src-shared/api/clientes';
import type { Entorno, Hacienda } from '../../src-shared/api/common';
import type { AppInfo, DeviceInfo } from '../../src-shared/bridge';
import { createEngineClient, type EngineClient } from '../api/engine-client';
import { explainError, type Problem } from '../api/problems';
import { arranqueSchema, type Arranque } from '../api/panel-schemas';
import { isLang, translate, type DynamicKey, type Lang, type MessageKey } from '../i18n';
import { DEFAULT_TIME_ZONE, formatAge, formatDateTime, formatDecimal, formatMoney, formatTime, TIME_ZONES } from '../i18n/format';
import { tillBridge } from '../platform/bridge';
import { pageHash, pageHref, replacePageUrl, sessionGet, sessionSet, setPageLang } from '../platform/page';
import { browserStore, type KeyValueStore } from '../platform/storage';
import { PRIMERA_CAJA } from '../../src-shared/nombre-caja';
import { defaultSerie } from './serie';

export const SCREENS = ['venta', 'facturas', 'sync', 'ajustes'] as const;
export type Screen = (typeof SCREENS)[number];

export interface Emisor {
  nif: string;
  nombre: string;
  hacienda: Hacienda;
  /** The installation's legal mode (issue 32), set by the service team; absent for TicketBAI issuers. */
  modoSif?: 'verifactu' | 'no_verifactu' | undefined;
}

/** The language of the customer's ticket: a shop setting, apart from the staff's UI language. */
export const IDIOMAS_TICKET = ['es', 'eu', 'es-eu'] as const;
export type IdiomaTicket = (typeof IDIOMAS_TICKET)[number];

export interface TillSettings {
  serie: string;
  ancho: 80 | 58;
  imprimirAlCobrar: boolean;
  /** Spanish by default; Basque or bilingual where the shop chooses. */
  idiomaTicket: IdiomaTicket;
  /** The shop's clock for every time and date shown (Europe/Madrid by default). */
  zonaHoraria: string;
}

export interface SessionState {
  /** `identify`: a browser till on its first run asks which till it is (features/device). */
  state: 'loading' | 'identify' | 'ready' | 'error';
  error: string | undefined;
  client: EngineClient | undefined;
  arranque: Arranque | undefined;
  entorno: Entorno;
  lang: Lang;
  screen: Screen;
  emisor: Emisor | undefined;
  idMaquina: string;
  /** The till's name as staff gave it or the engine registered it (never the computer's name). */
  etiqueta: string;
  deviceInfo: DeviceInfo | undefined;
  appInfo: AppInfo | undefined;
  settings: TillSettings;
  store: KeyValueStore;
  boot(): Promise<void>;
  setScreen(screen: Screen): void;
  /** The till's identity, chosen or created on the first run; kept from then on. */
  identify(idMaquina: string, etiqueta: string): void;
  /** The till's name as the engine has it (the desktop's is given on its registration). */
  rename(etiqueta: string): void;
  setLang(lang: Lang): void;
  setEntorno(entorno: Entorno): Promise<void>;
  setEmisor(nif: string): Promise<void>;
  updateSettings(patch: Partial<TillSettings>): void;
  t(key: MessageKey | DynamicKey, vars?: Record<string, string | number>): string;
  /** Any error of the till's calls, explained in the staff's language. */
  problem(error: unknown): Problem;
}

const TOKEN_KEY = 'till.panelToken';

/** The panel token: from `?token=` (then removed from the address bar), the tab's session, or the bridge. */
async function findToken(): Promise<{ token: string; appInfo?: AppInfo } | undefined> {
  const url = new URL(pageHref());
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionSet(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    replacePageUrl(`${url.pathname}${url.search}${url.hash}`);
    return { token: fromUrl };
  }
  const bridge = tillBridge();
  if (bridge) {
    const appInfo = await bridge.appInfo();
    return { token: appInfo.panelToken, appInfo };
  }
  const saved = sessionGet(TOKEN_KEY);
  return saved ? { token: saved } : undefined;
}



function loadSettings(store: KeyValueStore, idMaquina: string): TillSettings {
  const serie = store.get('till.serie') ?? defaultSerie(idMaquina);
  const ancho = store.get('till.ancho') === '58' ? 58 : 80;
  const idioma = store.get('till.idiomaTicket');
  const zona = store.get('till.zonaHoraria');
  return {
    serie,
    ancho,
    imprimirAlCobrar: store.get('till.imprimirAlCobrar') === '1',
    idiomaTicket: (IDIOMAS_TICKET as readonly string[]).includes(idioma ?? '') ? (idioma as IdiomaTicket) : 'es',
    zonaHoraria: zona && (TIME_ZONES as readonly string[]).includes(zona) ? zona : DEFAULT_TIME_ZONE,
  };
}

function screenFromHash(): Screen {
  const name = pageHash().replace(/^#\/?/, '');
  return (SCREENS as readonly string[]).includes(name) ? (name as Screen) : 'venta';
}

export const useSession = create<SessionState>((set, get) => {
  const store = browserStore();
  const savedLang = store.get('till.lang');
  return {
    state: 'loading',
    error: undefined,
    client: undefined,
    arranque: undefined,
    entorno: store.get('till.entorno') === 'live' ? 'live' : 'test',
    lang: isLang(savedLang) ? savedLang : 'es',
    screen: 'venta',
    emisor: undefined,
    idMaquina: '',
    etiqueta: store.get('till.etiqueta') ?? '',
    deviceInfo: undefined,
    appInfo: undefined,
    settings: { serie: 'T', ancho: 80, imprimirAlCobrar: false, idiomaTicket: 'es', zonaHoraria: DEFAULT_TIME_ZONE },
    store,

    async boot() {
      set({ state: 'loading', error: undefined, screen: screenFromHash() });
      setPageLang(get().lang);
      try {
        const found = await findToken();
        if (!found) {
          set({ state: 'error', error: get().t('app.sinToken') });
          return;
        }
        const bridge = tillBridge();
        const deviceInfo = bridge ? await bridge.deviceInfo() : undefined;
        // The desktop app has its installation's identity; a browser till keeps the one chosen on its first run.
        const idMaquina = deviceInfo?.idMaquina ?? store.get('till.idMaquina') ?? '';
        // Its name is the engine's label of it, never the computer's name (staff could not tell
        // «vm» from «DESKTOP-7Q2»): until the engine says, the one kept, or «Caja 1» for a new desktop till.
        const etiqueta = store.get('till.etiqueta') ?? (deviceInfo ? PRIMERA_CAJA : '');
        const client = createEngineClient({ token: found.token, entorno: () => get().entorno, t: (key, vars) => get().t(key, vars) });
        const arranque = await client.panel.get('/panel/v1/arranque', arranqueSchema);
        const settings = loadSettings(store, idMaquina);
        if (deviceInfo) settings.ancho = deviceInfo.impresora.ancho;
        set({ client, arranque, idMaquina, etiqueta, deviceInfo, appInfo: found.appInfo, settings });
        await get().setEmisor(store.get(`till.emisor.${get().entorno}`) ?? arranque.nifEmisor ?? '');
        // A browser profile is not a till: on its first run staff say which till it is.
        set({ state: idMaquina ? 'ready' : 'identify' });
      } catch (error) {
        set({ state: 'error', error: `${get().t('app.errorArranque')}: ${explainError(get().lang, error).mensaje}` });
      }
    },

    identify(idMaquina, etiqueta) {
      // The session's store (the one the sale and invoices use; tests inject theirs).
      const kept = get().store;
      kept.set('till.idMaquina', idMaquina);
      kept.set('till.etiqueta', etiqueta);
      set({ idMaquina, etiqueta, settings: loadSettings(kept, idMaquina), state: 'ready' });
    },

    rename(etiqueta) {
      get().store.set('till.etiqueta', etiqueta);
      set({ etiqueta });
    },

    setScreen(screen) {
      if (pageHash() !== `#/${screen}`) replacePageUrl(`#/${screen}`);
      set({ screen });
    },

    setLang(lang) {
      store.set('till.lang', lang);
      setPageLang(lang);
      set({ lang });
    },

    async setEntorno(entorno) {
      store.set('till.entorno', entorno);
      set({ entorno });
      const nif = store.get(`till.emisor.${entorno}`) ?? get().arranque?.nifEmisor ?? '';
      await get().setEmisor(nif);
    },

    async setEmisor(nif) {
      const client = get().client;
      if (!client || !nif) {
        set({ emisor: undefined });
        return;
      }
      store.set(`till.emisor.${get().entorno}`, nif);
      try {
        const { cliente } = await client.manage.get(`/v1/clientes/${encodeURIComponent(nif)}`, clienteEnvelopeSchema);
        set({ emisor: { nif: cliente.nif, nombre: cliente.nombre, hacienda: cliente.hacienda, modoSif: cliente.modoSif } });
      } catch {
        // The issuer's details are not readable (no key, no seat): sell under its NIF, VeriFactu.
        set({ emisor: { nif, nombre: nif, hacienda: 'verifactu' } });
      }
    },

    updateSettings(patch) {
      const settings = { ...get().settings, ...patch };
      store.set('till.serie', settings.serie);
      store.set('till.ancho', String(settings.ancho));
      store.set('till.imprimirAlCobrar', settings.imprimirAlCobrar ? '1' : '0');
      store.set('till.idiomaTicket', settings.idiomaTicket);
      store.set('till.zonaHoraria', settings.zonaHoraria);
      set({ settings });
    },

    t(key, vars) {
      return translate(get().lang, key, vars);
    },

    problem(error) {
      return explainError(get().lang, error);
    },
  };
});

/** The translate function bound to the session's language, re-rendering on change. */
export function useT(): (key: MessageKey | DynamicKey, vars?: Record<string, string | number>) => string {
  const lang = useSession((s) => s.lang);
  return (key, vars) => translate(lang, key, vars);
}

/** Numbers and clocks in the staff's language and the shop's time zone, re-rendering on change. */
export function useFormat() {
  const lang = useSession((s) => s.lang);
  const zona = useSession((s) => s.settings.zonaHoraria);
  return {
    lang,
    money: (v: string | undefined) => formatMoney(lang, v),
    amount: (v: string | undefined) => formatDecimal(lang, v),
    dateTime: (iso: string | Date | null | undefined) => formatDateTime(lang, zona, iso),
    time: (iso: string | Date | null | undefined) => formatTime(lang, zona, iso),
    age: (iso: string | null | undefined, now: Date) => formatAge(lang, iso, now),
  };
}
