// QR TBAI (specification §4.3.3): {host}?id={TBAI id}&s={serie}&nf={número}&i={ImporteTotalFactura
// as written in the XML}&cr={CRC-8 of everything before "&cr"}. Values URL-encoded (UTF-8); the
// image is ISO/IEC 18004 at error-correction level M, rendered by the one QR renderer.
import type { Entorno } from '../../../../../src-shared/api/common';
import type { Provincia } from '../../../../../src-shared/api/ticketbai';
import { qrPng } from '../../../qr/png';
import { crc8Digits } from './crc8';

/**
 * Validation hosts per treasury and environment. The CRC covers the host exactly as written here,
 * trailing "/" included. Araba: the specification writes https://ticketbai.araba.eus/TBAI/QRTBAI
 * (no "/"); its current service and the public implementations use the lower-case path with "/"
 * (FACTS.md: unconfirmed which is current). Bizkaia has a single host for both environments.
 */
export const QR_HOSTS: Readonly<Record<Provincia, Readonly<Record<Entorno, string>>>> = {
  araba: { test: 'https://pruebas-ticketbai.araba.eus/tbai/qrtbai/', live: 'https://ticketbai.araba.eus/tbai/qrtbai/' },
  bizkaia: { test: 'https://batuz.eus/QRTBAI/', live: 'https://batuz.eus/QRTBAI/' },
  gipuzkoa: { test: 'https://tbai.prep.gipuzkoa.eus/qr/', live: 'https://tbai.egoitza.gipuzkoa.eus/qr/' },
};

export interface UrlQrTbaiInput {
  provincia: Provincia;
  entorno: Entorno;
  idTbai: string;
  /** SerieFactura; absent when the invoice has no series (written as an empty `s=`). */
  serie?: string | undefined;
  numero: string;
  /** ImporteTotalFactura exactly as written in the XML ("value and format"). */
  importeTotal: string;
}

export function urlQrTbai(input: UrlQrTbaiInput): string {
  const sinCrc =
    QR_HOSTS[input.provincia][input.entorno] +
    '?id=' + encodeURIComponent(input.idTbai) +
    '&s=' + encodeURIComponent(input.serie ?? '') +
    '&nf=' + encodeURIComponent(input.numero) +
    '&i=' + encodeURIComponent(input.importeTotal);
  return sinCrc + '&cr=' + crc8Digits(sinCrc);
}

/** PNG of the QR (level M); deterministic, so a later GET serves the same bytes as issuing. */
export function qrTbaiPng(url: string): Buffer {
  return qrPng(url);
}
