// Builders of TicketBAI invoices, software and certificates for tests and the bench: valid by
// default, changed by overrides, e.g. aFacturaTbai({ importeTotal: '12.10' }).
import type {
  DestinatarioTbai,
  DetalleDesgloseTbai,
  FacturaTicketbai,
  LineaTbai,
  TicketbaiAnularBody,
} from '../../../src-shared/api/ticketbai';
import { generateTestCertificate, type CertificadoPrueba } from '../../../engine/src/regimes/ticketbai/certificados';
import type { SoftwareTbai } from '../../../engine/src/regimes/ticketbai/record/xml';

/** The day the fixtures are issued. */
export const HOY = '02-03-2026';
/** 2026-03-02 11:15:00 in Madrid (CET, +01:00). */
export const GENERADO_EN = new Date('2026-03-02T10:15:00Z');

export const EMISOR_TBAI: { readonly nif: string; readonly nombre: string } = { nif: 'B12345674', nombre: 'Ferretería López & Hijos, S.L.' };

export function aSoftwareTbai(o: Partial<SoftwareTbai> = {}): SoftwareTbai {
  return { licenciaTbai: 'TBAIGIPRE00000000501', nifDesarrolladora: 'B87654321', nombre: 'TillEngine', version: '0.1.0', ...o };
}

export function aDetalleTbai(o: Partial<DetalleDesgloseTbai> = {}): DetalleDesgloseTbai {
  return { baseImponible: '10.00', tipoImpositivo: '21.00', cuota: '2.10', ...o };
}

export function aLineaTbai(o: Partial<LineaTbai> = {}): LineaTbai {
  return { descripcion: 'Tornillos <M6> & tuercas', cantidad: '4', importeUnitario: '2.5', importeTotal: '12.1', ...o };
}

export function aDestinatarioTbai(o: Partial<DestinatarioTbai> = {}): DestinatarioTbai {
  return { nif: '12345678Z', nombre: 'Cliente Pérez <Mayorista>', codigoPostal: '20001', direccion: 'Calle Mayor 1, 2º "B"', ...o };
}

/** Simplified invoice (ticket) with one line: 10.00 + 21 % = 12.10, in Gipuzkoa. */
export function aFacturaTbai(o: Partial<FacturaTicketbai> = {}): FacturaTicketbai {
  return {
    provincia: 'gipuzkoa',
    emisor: { ...EMISOR_TBAI },
    serie: 'T',
    numero: '000123',
    fechaExpedicion: HOY,
    tipoFactura: 'F2',
    importeTotal: '12.10',
    desglose: [aDetalleTbai()],
    lineas: [aLineaTbai()],
    ...o,
  };
}

/** Complete invoice with a recipient: 100.00 + 21 % = 121.00. */
export function aFacturaF1Tbai(o: Partial<FacturaTicketbai> = {}): FacturaTicketbai {
  return aFacturaTbai({
    serie: 'A-2026',
    numero: '0001',
    tipoFactura: 'F1',
    horaExpedicion: '09:30:00',
    descripcion: 'Venta de herramientas',
    destinatario: aDestinatarioTbai(),
    importeTotal: '121.00',
    desglose: [aDetalleTbai({ baseImponible: '100.00', cuota: '21.00' })],
    lineas: [aLineaTbai({ cantidad: '1.5', importeUnitario: '66.66666667', descuento: '0.00000001', importeTotal: '121' })],
    ...o,
  });
}

export function anAnularTbai(o: Partial<TicketbaiAnularBody> = {}): TicketbaiAnularBody {
  return { nifEmisor: EMISOR_TBAI.nif, serie: 'T', numero: '000123', fechaExpedicion: HOY, provincia: 'gipuzkoa', ...o };
}

let certificado: CertificadoPrueba | undefined;

/** One self-signed test certificate per process (key generation takes a moment). */
export function aCertificadoTbai(): CertificadoPrueba {
  certificado ??= generateTestCertificate({ nif: EMISOR_TBAI.nif, nombre: EMISOR_TBAI.nombre, now: new Date('2026-01-01T00:00:00Z') });
  return certificado;
}
