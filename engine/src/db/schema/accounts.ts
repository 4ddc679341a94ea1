import type { EstadoCuenta } from '../../../../src-shared/api/cuenta';

/** An account: the shop or company that holds API keys. `nif` is `nifClientePrincipal`. */
export interface AccountsTable {
  id: string;
  nif: string;
  nombre: string;
  plan: string;
  estadoCuenta: EstadoCuenta;
  facturacionActiva: number;
  /** Client seats per environment; null means no configured limit (the counters are then omitted). */
  limiteClientesTest: number | null;
  limiteClientesLive: number | null;
  creadoEn: string;
}
