// The printed QR must measure 30–40 mm (FACTS.md, "VeriFactu QR"). The module count comes from
// encoding the URL in byte mode at level M, as a printer's own QR generator does.
import QRCode from 'qrcode';

export const QR_MIN_MM = 30;
export const QR_MAX_MM = 40;
export const QR_TARGET_MM = 35;

export function qrModules(url: string): number {
  return QRCode.create([{ data: Buffer.from(url, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules.size;
}

/** ESC/POS module size (dots per module, 1–16) putting the symbol closest to 35 mm within 30–40 mm. */
export function escposModuleSize(url: string, dotsPerMm: number): { size: number; mm: number } {
  const modules = qrModules(url);
  let best: { size: number; mm: number } | undefined;
  for (let size = 1; size <= 16; size++) {
    const mm = (modules * size) / dotsPerMm;
    if (mm < QR_MIN_MM || mm > QR_MAX_MM) continue;
    if (!best || Math.abs(mm - QR_TARGET_MM) < Math.abs(best.mm - QR_TARGET_MM)) best = { size, mm };
  }
  if (!best) throw new Error(`no module size prints a ${modules}-module QR within ${QR_MIN_MM}–${QR_MAX_MM} mm at ${dotsPerMm} dots/mm`);
  return best;
}
