import type { Entorno } from '../../../../src-shared/api/common';
import type { Provincia } from '../../../../src-shared/api/ticketbai';
import type { TlsClientConfig } from '../../core/transport';

export interface TbaiEndpoints {
  /** Base URL of each province's reception service per environment (the emulator's by default). */
  base: Record<Provincia, Record<Entorno, string>>;
  timeoutMs: number;
  tls?: TlsClientConfig | undefined;
}

export interface TbaiCertificateConfig {
  /** PKCS#12 of the install (or the issuers' representative) for LIVE; TEST generates one. */
  live?: { pkcs12Path: string; password: string } | undefined;
}
