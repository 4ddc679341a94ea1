import { constants, crc32, deflateSync } from 'node:zlib';
import encodeQR from 'qr';

/**
 * QR code as a PNG, at error-correction level M (AEAT's QR specification).
 *
 * The QR is on the issuing hot path (every answer carries `qrBase64`). Measured on this class of
 * machine: `qrcode.toBuffer` ≈ 200/s, `qr` matrix + pngjs ≈ 1.8 k/s, + fast-png ≈ 2.5 k/s — the
 * JavaScript deflate and per-pixel packing dominate. So the matrix comes from the `qr` package
 * (≈ 13 k/s) and the image is a 1-bit grayscale PNG deflated by node's native zlib: only the
 * four-chunk PNG container is written here. Each module row is `scale` identical pixel rows: the
 * first is written as is (filter None), the others with filter Up, i.e. all zero bytes, which
 * halves the deflate time and the size; the decoded pixels are the same as with filter None on
 * every row (the image before issue 16, pinned by a test).
 */
export interface QrPngOptions {
  /** Pixels per module. */
  scale?: number;
  /** Quiet zone in modules (ISO/IEC 18004 asks for 4). */
  quietZone?: number;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return out;
}

/** The module matrix, quiet zone included (true = dark). */
export function qrMatrix(text: string, quietZone = 4): boolean[][] {
  return encodeQR(text, 'raw', { ecc: 'medium', border: quietZone });
}

/** PNG filter types (RFC 2083 §6): a row as is, or as the byte difference to the row above. */
const FILTER_NONE = 0;
const FILTER_UP = 2;

export function qrPng(text: string, options: QrPngOptions = {}): Buffer {
  const scale = options.scale ?? 4;
  const quiet = options.quietZone ?? 4;
  const matrix = qrMatrix(text, quiet);
  const modules = matrix.length;
  const width = modules * scale;
  const rowBytes = Math.ceil(width / 8);
  const stride = rowBytes + 1;
  // Zero-filled: a filter-Up row of zero bytes repeats the row above. 1-bit pixels: 1 is white.
  const raw = Buffer.alloc(stride * width);
  for (let my = 0; my < modules; my++) {
    const first = my * scale * stride;
    raw[first] = FILTER_NONE;
    raw.fill(0xff, first + 1, first + stride);
    const cells = matrix[my] ?? [];
    for (let mx = 0; mx < modules; mx++) {
      if (!cells[mx]) continue;
      for (let px = mx * scale; px < (mx + 1) * scale; px++) raw[first + 1 + (px >> 3)]! &= ~(0x80 >> (px & 7));
    }
    for (let dy = 1; dy < scale; dy++) raw[first + dy * stride] = FILTER_UP;
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // grayscale
  header[10] = 0; // deflate
  header[11] = 0; // adaptive filtering: None or Up, row by row
  header[12] = 0; // no interlace
  return Buffer.concat([
    SIGNATURE,
    chunk('IHDR', header),
    // Run-length deflate: runs of white and black (and of zero Up rows) are all a QR image has.
    chunk('IDAT', deflateSync(raw, { strategy: constants.Z_RLE })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
