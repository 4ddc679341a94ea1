// The installation's legal mode (issue 32) in words: read only at the till, set by the service team.
import type { MessageKey } from '../../i18n';

export function modoSifClave(modo: 'verifactu' | 'no_verifactu' | undefined): MessageKey {
  if (modo === 'no_verifactu') return 'modoSif.no_verifactu';
  if (modo === 'verifactu') return 'modoSif.verifactu';
  // TicketBAI issuers: the mode does not apply (their treasury's own rules).
  return 'modoSif.noAplica';
}
