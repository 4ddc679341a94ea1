// Invoice numbers of this till's series: correlative, kept per (environment, issuer, series).
// The counter lives beside the till's identity (localStorage of the till window); should it be
// lost, the engine's replay answer (`yaExistente`) or identity conflict tells the till that a number
// was taken and the sale is issued again with the next one (SaleStore.complete).
import type { KeyValueStore } from '../../platform/storage';

export interface NumberingScope {
  entorno: string;
  nifEmisor: string;
  serie: string;
}

const keyOf = (s: NumberingScope) => `till.numero.${s.entorno}.${s.nifEmisor}.${s.serie}`;

export class Numbering {
  constructor(private readonly store: KeyValueStore) {}

  /** The last number used in the scope (0 when none). */
  last(scope: NumberingScope): number {
    const raw = this.store.get(keyOf(scope));
    const n = raw === null ? 0 : Number(raw);
    return Number.isSafeInteger(n) && n >= 0 ? n : 0;
  }

  /** The number the next sale gets; not reserved until `commit`. */
  peek(scope: NumberingScope): string {
    return String(this.last(scope) + 1);
  }

  /** Records `numero` as used (never moves the counter backwards). */
  commit(scope: NumberingScope, numero: string): void {
    const n = Number(numero);
    if (Number.isSafeInteger(n) && n > this.last(scope)) this.store.set(keyOf(scope), String(n));
  }
}
