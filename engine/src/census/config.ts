import type { TlsClientConfig } from '../core/transport';

export const DEFAULT_CENSUS_EMULATOR_URL = 'http://127.0.0.1:8790/wlpl/BURT-JDIT/ws/VNifV2SOAP';

export interface CensusConfig {
  /** The NIF check service (AEAT VNifV2-style SOAP); the shipped emulator by default. */
  url: string;
  /** A query without an answer within this time counts as "census unreachable". */
  timeoutMs: number;
  /** A cached verdict younger than this is answered without asking the census. */
  cacheTtlMs: number;
  tls?: TlsClientConfig;
}

export const DEFAULT_CENSUS_CONFIG: CensusConfig = {
  url: DEFAULT_CENSUS_EMULATOR_URL,
  timeoutMs: 5_000,
  cacheTtlMs: 24 * 60 * 60 * 1000,
};
