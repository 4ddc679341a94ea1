// The receipt as a standalone HTML page for the OS printer (webContents.print, no dialog): paper
// width in mm, the QR as inline SVG 35 mm square with "QR tributario:" above and "VERI*FACTU"
// (or the TicketBAI identifier) below, first thing after the issuer — as FACTS.md asks.
import QRCode from 'qrcode';
import type { Receipt } from '../../src-shared/bridge';
import { leyendaQr } from '../../src-shared/qr-leyenda';
import { QR_TARGET_MM } from './qr-size';

/** Quiet zone around the symbol: ≥ 2 mm (FACTS.md) and ≥ 4 modules for any URL of 35+ modules. */
const QR_QUIET_MM = 4;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
const money = (v: string) => v.replace('.', ',');

export async function receiptHtml(receipt: Receipt): Promise<string> {
  // No margin: the SVG box is the symbol itself (35 mm); the quiet zone is the padding below.
  const svg = await QRCode.toString(receipt.qr.url, { type: 'svg', errorCorrectionLevel: 'M', margin: 0 });
  const e = escapeHtml;
  const leyenda = leyendaQr(receipt.qr);
  const legend = leyenda === undefined ? '' : `<div class="legend">${e(leyenda)}</div>`;
  const lines = receipt.lineas
    .map(
      (l) => `<div class="row"><span>${e(l.descripcion)}</span><span>${money(l.importe)}</span></div>
<div class="sub">${e(l.cantidad.replace('.', ','))} × ${money(l.precio)} · ${e(l.tipoIva)}%</div>`,
    )
    .join('\n');
  const desglose = receipt.desglose
    .map((d) => `<div class="row sub"><span>${e(d.tipoIva)}% ${e(receipt.etiquetas?.base ?? 'Base')} ${money(d.base)}</span><span>${e(receipt.etiquetas?.cuota ?? 'Cuota')} ${money(d.cuota)}</span></div>`)
    .join('\n');
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<style>
@page { size: ${receipt.ancho}mm auto; margin: 0; }
body { margin: 0; width: ${receipt.ancho}mm; font-family: 'DejaVu Sans Mono', monospace; font-size: ${receipt.ancho === 80 ? 3 : 2.6}mm; color: #000; }
.t { padding: 3mm; }
.c { text-align: center; } .b { font-weight: bold; }
.row { display: flex; justify-content: space-between; gap: 2mm; }
.sub { font-size: 0.9em; }
.rule { border-top: 1px dashed #000; margin: 1.5mm 0; }
.qr { display: flex; flex-direction: column; align-items: center; margin: 2mm 0; }
.qr svg { width: ${QR_TARGET_MM}mm; height: ${QR_TARGET_MM}mm; }
.qr svg { padding: ${QR_QUIET_MM}mm; background: #fff; }
.qr .legend { font-weight: bold; }
.total { font-weight: bold; font-size: 1.25em; }
</style></head>
<body><div class="t">
${receipt.copia ? `<div class="c b">*** ${e(receipt.etiquetas?.copia ?? 'COPIA')} ***</div>` : ''}
<div class="c b">${e(receipt.emisor.nombre)}</div>
<div class="c">NIF ${e(receipt.emisor.nif)}</div>
<div class="qr"><div class="legend">QR tributario:</div>${svg}${legend}</div>
<div class="c b">${e(receipt.titulo)}</div>
<div class="row"><span>${e(receipt.numeroFactura)}</span><span>${e(receipt.fechaExpedicion)} ${e(receipt.hora ?? '')}</span></div>
${receipt.rectifica ? `<div>${e(receipt.rectifica)}</div>` : ''}
${receipt.destinatario ? `<div>${e(receipt.etiquetas?.cliente ?? 'Cliente')}: ${e(receipt.destinatario.nombre)} · NIF ${e(receipt.destinatario.nif)}</div>` : ''}
${receipt.destinatario?.direccion ? `<div>${e(receipt.destinatario.direccion)}</div>` : ''}
<div class="rule"></div>
${lines}
<div class="rule"></div>
${desglose}
<div class="row total"><span>${e(receipt.etiquetas?.total ?? 'Total')}</span><span>${money(receipt.importeTotal)} €</span></div>
${receipt.pie ? `<div class="c">${e(receipt.pie)}</div>` : ''}
${receipt.caja ? `<div class="c sub">${e(receipt.caja)}</div>` : ''}
</div></body></html>`;
}
