// The printed QR must measure 30–40 mm (FACTS.md, "VeriFactu QR"): that is the symbol, not the
// image. The engine's PNG carries a 4-module quiet zone, so the image box is the symbol's 35 mm
// grown by (n + 8) / n, where n is the module count of the URL's symbol.

export const QR_SYMBOL_MM = 35;
/** Quiet zone drawn inside the engine's PNG, in modules on each side (ISO/IEC 18004). */
export const QR_QUIET_MODULES = 4;

/** Byte-mode capacity of versions 1–40 at error-correction level M (ISO/IEC 18004, table 7). */
const BYTE_CAPACITY_M = [
  14, 26, 42, 62, 84, 106, 122, 152, 180, 213, 251, 287, 331, 362, 412, 450, 504, 560, 624, 666,
  711, 779, 857, 911, 997, 1059, 1125, 1190, 1264, 1370, 1452, 1538, 1628, 1722, 1809, 1911, 1989, 2099, 2213, 2331,
];

/** Modules per side of the level-M symbol of `text` in byte mode (URLs have lower case: no alphanumeric mode). */
export function qrModuleCount(text: string): number {
  const bytes = new TextEncoder().encode(text).length;
  const version = BYTE_CAPACITY_M.findIndex((capacity) => capacity >= bytes) + 1;
  if (version === 0) throw new Error(`QR: ${bytes} bytes do not fit a level-M symbol`);
  return 17 + 4 * version;
}

/** Side of the image box (quiet zone included) that prints the symbol itself `symbolMm` wide. */
export function qrBoxMm(modules: number, symbolMm = QR_SYMBOL_MM, quietModules = QR_QUIET_MODULES): number {
  return (symbolMm * (modules + 2 * quietModules)) / modules;
}

/** Side of the symbol when the image box (quiet zone included) is `boxMm` wide. */
export function qrSymbolMm(modules: number, boxMm: number, quietModules = QR_QUIET_MODULES): number {
  return (boxMm * modules) / (modules + 2 * quietModules);
}

/** The image box of the receipt QR for `url` (what ReceiptPreview sets as its width and height). */
export function qrBoxMmFor(url: string): number {
  return qrBoxMm(qrModuleCount(url));
}
