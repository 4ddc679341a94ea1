// Identificativo TBAI (specification §4.3.2): TBAI-{NIF}-{DDMMAA}-{first 13 chars of the
// SignatureValue}-{CRC-8 of the first 36 chars}, 39 characters in all.
import { crc8Digits } from './crc8';

export interface IdentificadorTbaiInput {
  /** NIF of the issuer, as in Sujetos/Emisor/NIF (9 characters). */
  nif: string;
  /** FechaExpedicionFactura, dd-mm-aaaa. */
  fechaExpedicion: string;
  /** SignatureValue of the invoice's XAdES signature (base64). */
  signatureValue: string;
}

export const LONGITUD_ID_TBAI = 39;

export function identificadorTbai(input: IdentificadorTbaiInput): string {
  const { nif, fechaExpedicion: f, signatureValue } = input;
  if (nif.length !== 9) throw new RangeError(`NIF must have 9 characters: "${nif}"`);
  if (!/^\d{2}-\d{2}-\d{4}$/.test(f)) throw new RangeError(`fechaExpedicion must be dd-mm-aaaa: "${f}"`);
  if (signatureValue.length < 13) throw new RangeError('SignatureValue shorter than 13 characters');
  // DDMMAA: day, month and the last two digits of the year.
  const base = 'TBAI-' + nif + '-' + f.slice(0, 2) + f.slice(3, 5) + f.slice(8, 10) + '-' + signatureValue.slice(0, 13) + '-';
  return base + crc8Digits(base);
}

/** True when `id` has the identifier's shape and its CRC matches its first 36 characters. */
export function identificadorTbaiValido(id: string): boolean {
  return id.length === LONGITUD_ID_TBAI && /^TBAI-.{9}-\d{6}-.{13}-\d{3}$/.test(id) && crc8Digits(id.slice(0, 36)) === id.slice(36);
}
