// TicketBAI identifier and CRC-8 (spec 1.2 §4.3.2 and annex 3): poly 0x07,
// init 0, no reflection, xorout 0, over the UTF-8 bytes, written as 3 digits.

export function crc8(input: string): string {
  let crc = 0;
  for (const byte of Buffer.from(input, 'utf8')) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return String(crc).padStart(3, '0');
}

/** DD-MM-YYYY -> DDMMYY, or null when not a real calendar date. */
export function ddmmyy(fecha: string): string | null {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(fecha.trim());
  if (!m) return null;
  const [, dd, mm, yyyy] = m as unknown as [string, string, string, string];
  const d = new Date(Date.UTC(Number(yyyy), Number(mm) - 1, Number(dd)));
  if (d.getUTCFullYear() !== Number(yyyy) || d.getUTCMonth() !== Number(mm) - 1 || d.getUTCDate() !== Number(dd)) {
    return null;
  }
  return `${dd}${mm}${yyyy.slice(2)}`;
}

/**
 * `TBAI-{NIF}-{DDMMAA}-{first 13 chars of SignatureValue}-{CRC}` (39 chars), or
 * null when a piece is missing (the service then answers 004).
 */
export function tbaiIdentifier(nif: string, fecha: string, signatureValue: string): string | null {
  const date = ddmmyy(fecha);
  const sig = signatureValue.replace(/\s+/g, '');
  if (!/^[0-9A-Z]{9}$/.test(nif) || date === null || sig.length < 13) return null;
  const head = `TBAI-${nif}-${date}-${sig.slice(0, 13)}-`;
  return head + crc8(head);
}

/** Checks the CRC of a 39-character identifier. */
export function isValidTbaiIdentifier(id: string): boolean {
  return id.length === 39 && crc8(id.slice(0, 36)) === id.slice(36);
}
