/** Published versions of the compliance declaration; the newest per `key` is current. */
export interface DeclarationsTable {
  id: string;
  key: string;
  version: number;
  publicadoEn: string;
  html: string;
  pdf: Uint8Array;
}
