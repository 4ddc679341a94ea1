// The invoice QR of AEAT's "Detalle de las especificaciones técnicas del código QR": the
// validation URL (four parameters, URL-encoded as Java's URLEncoder does) as a PNG at error
// correction level M.
import { qrPng as renderQrPng } from '../../../qr/png';

export type Entorno = 'test' | 'live';

const HOSTS: Record<Entorno, string> = {
  test: 'https://prewww2.aeat.es',
  live: 'https://www2.agenciatributaria.gob.es',
};

export interface UrlValidacionInput {
  entorno: Entorno;
  /** NIF of the issuer. */
  nif: string;
  /** Serie + numero (NumSerieFactura). */
  numSerie: string;
  /** dd-mm-aaaa */
  fechaExpedicion: string;
  /** ImporteTotal as written in the record (the canonical rendering). */
  importeTotal: string;
  /** Systems that do not send records (non VERI*FACTU) use ValidarQRNoVerifactu. */
  verifactu?: boolean | undefined;
}

/** What URLEncoder leaves as it is, throughout. */
const UNRESERVED = /^[A-Za-z0-9.\-*_]*$/;

/**
 * java.net.URLEncoder.encode(value, UTF-8): keeps A–Z a–z 0–9 . - * _, space → '+', the rest
 * %XX of its UTF-8 bytes. encodeURIComponent additionally keeps ! ' ( ) ~, so those are encoded.
 */
export function javaUrlEncode(value: string): string {
  // Every crear builds this URL: the usual NIF, number, date and amount need no encoding at all.
  if (UNRESERVED.test(value)) return value;
  return encodeURIComponent(value)
    .replace(/[!'()~]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/%20/g, '+');
}

export function urlValidacion(input: UrlValidacionInput): string {
  const path = input.verifactu === false ? '/wlpl/TIKE-CONT/ValidarQRNoVerifactu' : '/wlpl/TIKE-CONT/ValidarQR';
  return (
    HOSTS[input.entorno] + path +
    '?nif=' + javaUrlEncode(input.nif) +
    '&numserie=' + javaUrlEncode(input.numSerie) +
    '&fecha=' + javaUrlEncode(input.fechaExpedicion) +
    '&importe=' + javaUrlEncode(input.importeTotal)
  );
}

/** PNG at error-correction level M; deterministic, so GET …/qr serves the same bytes as issuing. */
export function qrPng(url: string): Promise<Buffer> {
  return Promise.resolve(renderQrPng(url));
}

export async function qrPngBase64(url: string): Promise<string> {
  return (await qrPng(url)).toString('base64');
}
