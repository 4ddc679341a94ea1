// The customer's ticket as it will print: 80 mm or 58 mm wide, the QR symbol 35 mm square (the rule
// asks for 30–40 mm; the image box adds the PNG's quiet zone, qr-size.ts) with "QR tributario:" above and "VERI*FACTU" below it, or the TicketBAI identifier
// under its QR. The QR image is the engine's PNG (the same one a reprint fetches again). Its words
// are the receipt's own (the shop's document language); amounts in the Spanish form, grouped.
import type { Receipt } from '../../../src-shared/bridge';
import { formatDecimal, formatMoney } from '../../i18n/format';
import { formatFechaMotor } from '../../i18n/format';
import { useT } from '../../app/session';
import { qrBoxMmFor } from './qr-size';
import { leyendaQr } from '../../../src-shared/qr-leyenda';

export interface ReceiptPreviewProps {
  receipt: Receipt;
  qrBase64: string;
}

const SPANISH_WORDS = { cliente: 'Cliente', base: 'Base', cuota: 'Cuota', total: 'Total', copia: 'COPIA', fecha: 'Fecha' };

export function ReceiptPreview({ receipt, qrBase64 }: ReceiptPreviewProps) {
  // Spanish and Basque tickets both write 1.234,56.
  const money = (v: string) => formatMoney('es', v);
  // Named for staff in their language (a screen reader reads the name, not the AEAT's URL).
  const t = useT();
  const words = receipt.etiquetas ?? SPANISH_WORDS;
  const box = `${qrBoxMmFor(receipt.qr.url).toFixed(2)}mm`;
  return (
    <div className={`receipt receipt-${receipt.ancho}`} data-testid="receipt" data-ancho={receipt.ancho} role="group" aria-label={receipt.titulo}>
      {receipt.copia ? <div className="receipt-copia">*** {words.copia} ***</div> : null}
      <div className="receipt-center receipt-strong">{receipt.emisor.nombre}</div>
      <div className="receipt-center">NIF {receipt.emisor.nif}</div>
      <div className="receipt-qr-block">
        <div className="receipt-qr-label">QR tributario:</div>
        <img className="receipt-qr" data-testid="receipt-qr" style={{ width: box, height: box }} src={`data:image/png;base64,${qrBase64}`} alt={t('qr.alt', { n: receipt.numeroFactura })} />
        {leyendaQr(receipt.qr) !== undefined ? (
          <div className="receipt-qr-legend" data-testid="receipt-legend">{leyendaQr(receipt.qr)}</div>
        ) : null}
      </div>
      <div className="receipt-center receipt-strong" data-testid="receipt-titulo">{receipt.titulo}</div>
      <div className="receipt-row">
        <span data-testid="receipt-numero">{receipt.numeroFactura}</span>
        <span>
          {formatFechaMotor(receipt.fechaExpedicion)} {receipt.hora ?? ''}
        </span>
      </div>
      {receipt.rectifica ? (
        <div className="receipt-block" data-testid="receipt-rectifica">
          {receipt.rectifica}
        </div>
      ) : null}
      {receipt.destinatario ? (
        <div className="receipt-block" data-testid="receipt-cliente">
          {words.cliente}: {receipt.destinatario.nombre} · NIF {receipt.destinatario.nif}
          {receipt.destinatario.direccion ? <div>{receipt.destinatario.direccion}</div> : null}
        </div>
      ) : null}
      <div className="receipt-rule" />
      {receipt.lineas.map((l, i) => (
        <div key={i} className="receipt-line">
          <div className="receipt-row">
            <span className="receipt-desc">{l.descripcion}</span>
            <span>{money(l.importe)}</span>
          </div>
          <div className="receipt-sub">
            {formatDecimal('es', l.cantidad)} × {money(l.precio)} · {formatDecimal('es', l.tipoIva)}%
          </div>
        </div>
      ))}
      <div className="receipt-rule" />
      {receipt.desglose.map((d) => (
        <div key={d.tipoIva} className="receipt-row receipt-sub">
          <span>
            {formatDecimal('es', d.tipoIva)}% {words.base} {money(d.base)}
          </span>
          <span>
            {words.cuota} {money(d.cuota)}
          </span>
        </div>
      ))}
      <div className="receipt-row receipt-total">
        <span>{words.total}</span>
        <span data-testid="receipt-total">{money(receipt.importeTotal)} €</span>
      </div>
      {receipt.pie ? <div className="receipt-center receipt-pie">{receipt.pie}</div> : null}
      {receipt.caja ? (
        <div className="receipt-center receipt-sub" data-testid="receipt-caja">
          {receipt.caja}
        </div>
      ) : null}
    </div>
  );
}
