// CRC-8 of the TicketBAI identifier and QR (specification §4.3.2–4.3.3, annex 3): polynomial 0x07,
// initial value 0, no reflection, no final XOR, over the UTF-8 bytes; written as 3 decimal digits.

const TABLE = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
    t[i] = c;
  }
  return t;
})();

/** CRC-8 (0x07) of the UTF-8 encoding of `text`. */
export function crc8(text: string): number {
  let crc = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // ASCII (identifiers, encoded URLs) is its own UTF-8: skip the encoder on the hot path.
    if (c >= 0x80) return crc8Bytes(Buffer.from(text, 'utf8'));
    crc = TABLE[crc ^ c] ?? 0;
  }
  return crc;
}

export function crc8Bytes(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = TABLE[crc ^ b] ?? 0;
  return crc;
}

/** The CRC as the identifier and the QR write it: 3 decimal digits, zero-padded ("007"). */
export function crc8Digits(text: string): string {
  const n = crc8(text);
  return n < 10 ? '00' + n : n < 100 ? '0' + n : String(n);
}
