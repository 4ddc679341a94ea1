// The legend under the receipt's QR (issue 32), shared by the receipt preview and both printers:
// «VERI*FACTU» for a system that sends its records, none for a «NO VERI*FACTU» invoice (its QR is
// …/ValidarQRNoVerifactu), the identifier for TicketBAI.
import { describe, expect, it } from 'vitest';
import { leyendaQr } from '../../src-shared/qr-leyenda';

const VF = 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=T1&fecha=22-11-2026&importe=5.70';
// ReceiptPreview, receipt-html and escpos all print what this returns.
const NO_VF = 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=B12345674&numserie=T1&fecha=22-11-2026&importe=5.70';

describe('leyendaQr', () => {
  it('VERI*FACTU only for the verifiable QR', () => {
    expect(leyendaQr({ sistema: 'verifactu', url: VF })).toBe('VERI*FACTU');
    expect(leyendaQr({ sistema: 'verifactu', url: NO_VF })).toBeUndefined();
    expect(leyendaQr({ sistema: 'ticketbai', url: 'https://batuz.eus/QRTBAI/?id=x', idTbai: 'TBAI-X' })).toBe('TBAI-X');
  });
});
