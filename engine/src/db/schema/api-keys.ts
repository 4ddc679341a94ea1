import type { Entorno } from '../../../../src-shared/api/common';

/** API keys are stored only as SHA-256 hashes; `prefix` lets support staff recognise one. */
export interface ApiKeysTable {
  id: string;
  accountId: string;
  entorno: Entorno;
  keyHash: string;
  prefix: string;
  creadoEn: string;
  revocadoEn: string | null;
  /** Key this one replaced by rotation; the monthly count carries over from it. */
  rotatedFromId: string | null;
}

/** Monthly request counter per key (period `YYYY-MM`, Europe/Madrid). */
export interface QuotaUsageTable {
  keyId: string;
  periodo: string;
  usadas: number;
  /** The `consumo` snapshot shown by /v1/cuenta, refreshed at most every few minutes. */
  snapshotUsadas: number | null;
  snapshotEn: string | null;
}
