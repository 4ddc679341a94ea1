import type { AeatEndpointConfig } from '../regimes/verifactu/authority/aeat-adapter';

export interface SubmissionConfig {
  aeat: AeatEndpointConfig;
  /** Back-off after failures: base and ceiling, with ±20 % jitter. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Seconds a record may wait before its submission counts as late (Incidencia = S), checked at every send. */
  incidenciaAfterSeconds: number;
  /** How often an idle worker looks for due work (wake() cuts it short). */
  pollMs: number;
  /** Queues sent at the same time. */
  parallelQueues: number;
  /**
   * The wait after a fault that needs a person (submission/blocked.ts: AEAT 4104…) instead of the
   * back-off: resending cannot cure it, the panel's "retry now" does once it is fixed. Default 1 h.
   */
  blockedRetryMs?: number;
  random?: () => number;
}

/** SubmissionConfig.blockedRetryMs when unset. */
export const DEFAULT_BLOCKED_RETRY_MS = 60 * 60_000;

export const DEFAULT_AEAT_EMULATOR_URL = 'http://127.0.0.1:8790/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP';
