// Where the TicketBAI emulators listen on the shared router. Every province sits
// under its own prefix; below it the path is the real service's path (from
// public client libraries, FACTS.md marks them *unconfirmed*):
//
//   Gipuzkoa  https://tbai-z.egoitza.gipuzkoa.eus/sarrerak/alta            -> /tbai/gipuzkoa/sarrerak/alta
//             .../sarrerak/baja                                             -> /tbai/gipuzkoa/sarrerak/baja
//             .../sarrerak/zuzendu-alta  (Zuzendu SUBSANAR / MODIFICAR)     -> /tbai/gipuzkoa/sarrerak/zuzendu-alta
//             .../sarrerak/zuzendu-baja  (Zuzendu, cancellation)            -> /tbai/gipuzkoa/sarrerak/zuzendu-baja
//   Araba     https://ticketbai.araba.eus/TicketBAI/v1/facturas/            -> /tbai/araba/TicketBAI/v1/facturas/
//             .../TicketBAI/v1/anulaciones/                                 -> /tbai/araba/TicketBAI/v1/anulaciones/
//             .../TicketBAI/v1/facturas/subsanarmodificar  (Zuzendu alta)   -> /tbai/araba/TicketBAI/v1/facturas/subsanarmodificar
//             .../TicketBAI/v1/anulaciones/baja            (Zuzendu baja)   -> /tbai/araba/TicketBAI/v1/anulaciones/baja
//   Bizkaia   https://sarrerak.bizkaia.eus/N3B4000M/aurkezpena (LROE)       -> /tbai/bizkaia/N3B4000M/aurkezpena
//
// A trailing slash is optional on every service path. Control API:
// /__control/tbai/<provincia>/... (see control.ts and README-urls.md).

export const PROVINCIAS = ['araba', 'bizkaia', 'gipuzkoa'] as const;
export type Provincia = (typeof PROVINCIAS)[number];
/** The two provinces with per-invoice REST reception (TicketBaiResponse). */
export type ProvinciaRest = 'araba' | 'gipuzkoa';

export type RestService = 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja';

export const TBAI_PREFIX: Readonly<Record<Provincia, string>> = Object.freeze({
  araba: '/tbai/araba',
  bizkaia: '/tbai/bizkaia',
  gipuzkoa: '/tbai/gipuzkoa',
});

/** Paths of the real services, relative to each province's host. */
export const TBAI_SERVICE_PATHS: Readonly<Record<ProvinciaRest, Readonly<Record<RestService, string>>>> = Object.freeze({
  gipuzkoa: Object.freeze({
    alta: '/sarrerak/alta',
    anulacion: '/sarrerak/baja',
    'zuzendu-alta': '/sarrerak/zuzendu-alta',
    'zuzendu-baja': '/sarrerak/zuzendu-baja',
  }),
  araba: Object.freeze({
    alta: '/TicketBAI/v1/facturas/',
    anulacion: '/TicketBAI/v1/anulaciones/',
    'zuzendu-alta': '/TicketBAI/v1/facturas/subsanarmodificar',
    'zuzendu-baja': '/TicketBAI/v1/anulaciones/baja',
  }),
});
export const LROE_SERVICE_PATH = '/N3B4000M/aurkezpena';

/** Full emulator paths (prefix + service path). */
export const GIPUZKOA_ALTA_PATH = '/tbai/gipuzkoa/sarrerak/alta';
export const GIPUZKOA_BAJA_PATH = '/tbai/gipuzkoa/sarrerak/baja';
export const GIPUZKOA_ZUZENDU_ALTA_PATH = '/tbai/gipuzkoa/sarrerak/zuzendu-alta';
export const GIPUZKOA_ZUZENDU_BAJA_PATH = '/tbai/gipuzkoa/sarrerak/zuzendu-baja';
export const ARABA_ALTA_PATH = '/tbai/araba/TicketBAI/v1/facturas/';
export const ARABA_ANULACION_PATH = '/tbai/araba/TicketBAI/v1/anulaciones/';
export const ARABA_ZUZENDU_ALTA_PATH = '/tbai/araba/TicketBAI/v1/facturas/subsanarmodificar';
export const ARABA_ZUZENDU_BAJA_PATH = '/tbai/araba/TicketBAI/v1/anulaciones/baja';
export const BIZKAIA_LROE_PATH = '/tbai/bizkaia/N3B4000M/aurkezpena';
export const TBAI_CONTROL_PREFIX = '/__control/tbai/';

export interface TbaiPaths {
  araba: Record<RestService, string>;
  gipuzkoa: Record<RestService, string>;
  bizkaia: { lroe: string };
  control: string;
}

export const TBAI_PATHS: Readonly<TbaiPaths> = Object.freeze({
  araba: {
    alta: ARABA_ALTA_PATH,
    anulacion: ARABA_ANULACION_PATH,
    'zuzendu-alta': ARABA_ZUZENDU_ALTA_PATH,
    'zuzendu-baja': ARABA_ZUZENDU_BAJA_PATH,
  },
  gipuzkoa: {
    alta: GIPUZKOA_ALTA_PATH,
    anulacion: GIPUZKOA_BAJA_PATH,
    'zuzendu-alta': GIPUZKOA_ZUZENDU_ALTA_PATH,
    'zuzendu-baja': GIPUZKOA_ZUZENDU_BAJA_PATH,
  },
  bizkaia: { lroe: BIZKAIA_LROE_PATH },
  control: TBAI_CONTROL_PREFIX,
});

const strip = (p: string): string => p.replace(/\/+$/, '');

/** Which REST service a path (below the province prefix) names, trailing slash optional. */
export function restServiceOf(provincia: ProvinciaRest, subPath: string): RestService | null {
  const want = strip(subPath);
  for (const [svc, p] of Object.entries(TBAI_SERVICE_PATHS[provincia]) as Array<[RestService, string]>) {
    if (strip(p) === want) return svc;
  }
  return null;
}
