/** Decodes the QR in a PNG screenshot (jsQR over pngjs pixels). */
import jsQR from 'jsqr';
import { PNG } from 'pngjs';

export function decodeQrPng(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  const result = jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength), image.width, image.height);
  return result?.data;
}

/** AEAT's TEST validation URL for an invoice (FACTS.md, "VeriFactu QR"): Java URLEncoder rules. */
export function expectedVerifactuUrl(nif: string, numSerie: string, fecha: string, importe: string): string {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+').replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=${enc(nif)}&numserie=${enc(numSerie)}&fecha=${enc(fecha)}&importe=${enc(importe)}`;
}
