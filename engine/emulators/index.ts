import path from 'node:path';
import type { AeatEmulator, AeatEmulatorOptions } from './aeat/index';
import { createAeatEmulator } from './aeat/index';
import { CensusDirectory } from './census-data';
import { censusControlHandler } from './census-control';
import { CENSUS_SEED, createCensusEmulator, type CensusServiceEmulator } from './census/index';
import type { TlsOptions } from './router';
import { createRouter } from './router';
import type { Clock, IdSource } from './types';
import type { TicketBaiEmulator, TicketBaiEmulatorOptions } from './ticketbai/index';
import { createTicketBaiEmulator } from './ticketbai/index';

export { createAeatEmulator, AEAT_SOAP_PATH } from './aeat/index';
export type { AeatEmulator, AeatEmulatorOptions, AeatConfig } from './aeat/index';
export { CensusDirectory, SEED_TAXPAYERS, TaxpayerSchema } from './census-data';
export type { Taxpayer, TaxpayerEstado } from './census-data';
export { CONTROL_TOKEN_HEADER, createRouter } from './router';
export type { EmulatorRouter, SubHandler, TlsOptions } from './router';
export type { Clock, IdSource } from './types';
export { CENSUS_SOAP_PATH, CENSUS_SEED, createCensusEmulator } from './census/index';
export type { CensusServiceEmulator } from './census/index';
export {
  createTicketBaiEmulator,
  TBAI_PATHS,
  TBAI_PREFIX,
  GIPUZKOA_ALTA_PATH,
  GIPUZKOA_BAJA_PATH,
  GIPUZKOA_ZUZENDU_ALTA_PATH,
  GIPUZKOA_ZUZENDU_BAJA_PATH,
  ARABA_ALTA_PATH,
  ARABA_ANULACION_PATH,
  ARABA_ZUZENDU_ALTA_PATH,
  ARABA_ZUZENDU_BAJA_PATH,
  BIZKAIA_LROE_PATH,
  TBAI_CONTROL_PREFIX,
} from './ticketbai/index';
export type { TicketBaiEmulator, TicketBaiEmulatorOptions, TbaiLedgerApi, TbaiInvoice, Provincia } from './ticketbai/index';

export interface StartEmulatorsOptions {
  /** Default POS_EMULATOR_PORT or 8790; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default POS_EMULATOR_DATA_DIR or ./data/emulators. */
  dataDir?: string;
  clock?: Clock;
  ids?: IdSource;
  tls?: TlsOptions;
  /** Guard /__control/: Host checked, changes only as application/json with this per-launch token. */
  controlToken?: string;
  census?: CensusDirectory;
  /** Extra options for the AEAT VeriFactu emulator. */
  aeat?: Omit<AeatEmulatorOptions, 'router' | 'tls' | 'census' | 'clock' | 'ids' | 'dataDir'>;
  /** Extra options for the TicketBAI emulators (Araba, Bizkaia LROE, Gipuzkoa). */
  tbai?: Omit<TicketBaiEmulatorOptions, 'router' | 'tls' | 'clock' | 'ids' | 'dataDir'>;
}

export interface RunningEmulators {
  url: string;
  port: number;
  aeat: AeatEmulator;
  census: CensusDirectory;
  /** The AEAT-like NIF check service (SOAP at CENSUS_SOAP_PATH) over `census`. */
  censusService: CensusServiceEmulator;
  /** TicketBAI reception (Araba, Gipuzkoa), Zuzendu and Bizkaia LROE, under /tbai/<provincia>/. */
  tbai: TicketBaiEmulator;
  close(): Promise<void>;
}

/**
 * Starts every emulator on one server (AEAT VeriFactu today; TicketBAI and the
 * census service mount on the same router by path prefix later).
 */
export async function startEmulators(opts: StartEmulatorsOptions = {}): Promise<RunningEmulators> {
  const envPort = process.env.POS_EMULATOR_PORT ? Number(process.env.POS_EMULATOR_PORT) : undefined;
  const port = opts.port ?? (Number.isInteger(envPort) ? envPort : undefined) ?? 8790;
  const host = opts.host ?? '127.0.0.1';
  const dataDir = path.resolve(opts.dataDir ?? process.env.POS_EMULATOR_DATA_DIR ?? './data/emulators');
  const census = opts.census ?? new CensusDirectory(CENSUS_SEED);
  const router = createRouter({ ...(opts.tls ? { tls: opts.tls } : {}), ...(opts.controlToken ? { control: { token: opts.controlToken } } : {}) });
  router.mount(censusControlHandler(census));
  const censusService = createCensusEmulator({ router, directory: census });
  const aeat = createAeatEmulator({
    ...opts.aeat,
    router,
    census,
    dataDir,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.ids ? { ids: opts.ids } : {}),
  });
  const tbai = createTicketBaiEmulator({
    ...opts.tbai,
    router,
    dataDir,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.ids ? { ids: opts.ids } : {}),
  });
  let actualPort: number;
  try {
    actualPort = await router.listen(port, host);
    await aeat.ready();
    await tbai.ready();
  } catch (err) {
    await aeat.close();
    await tbai.close();
    await router.close();
    throw err;
  }
  return {
    url: router.url(),
    port: actualPort,
    aeat,
    census,
    censusService,
    tbai,
    async close() {
      censusService.close();
      await router.close();
      await aeat.close();
      await tbai.close();
    },
  };
}
