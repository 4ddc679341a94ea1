/** A till's own credential on a shared engine (devices/till-credentials.ts); secrets only as SHA-256. */
export interface TillCredentialsTable {
  id: string;
  accountId: string;
  nifEmisor: string;
  idMaquina: string;
  etiqueta: string;
  tokenHash: string;
  keyTestId: string;
  keyLiveId: string;
  creadoEn: string;
  revocadoEn: string | null;
}
