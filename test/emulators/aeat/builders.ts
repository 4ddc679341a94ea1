// Test-side builder for VeriFactu SOAP requests. Deliberately independent of
// engine/src and of the emulator: huellas are computed here from FACTS.md so a
// bug shared by both sides cannot hide itself.
import { createHash } from 'node:crypto';

export const NS_SOAP = 'http://schemas.xmlsoap.org/soap/envelope/';
export const NS_LR =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroLR.xsd';
export const NS_SI =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd';

export const SOAP_PATH = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP';

export interface InvoiceId {
  emisor: string;
  numSerie: string;
  /** DD-MM-YYYY */
  fecha: string;
}

export interface PrevLink extends InvoiceId {
  huella: string;
}

export function sha256Upper(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex').toUpperCase();
}

export function huellaAlta(f: {
  emisor: string;
  numSerie: string;
  fecha: string;
  tipoFactura: string;
  cuotaTotal: string;
  importeTotal: string;
  prevHuella: string;
  fechaHoraHusoGenRegistro: string;
}): string {
  return sha256Upper(
    `IDEmisorFactura=${f.emisor.trim()}&NumSerieFactura=${f.numSerie.trim()}` +
      `&FechaExpedicionFactura=${f.fecha.trim()}&TipoFactura=${f.tipoFactura.trim()}` +
      `&CuotaTotal=${f.cuotaTotal.trim()}&ImporteTotal=${f.importeTotal.trim()}` +
      `&Huella=${f.prevHuella.trim()}&FechaHoraHusoGenRegistro=${f.fechaHoraHusoGenRegistro.trim()}`,
  );
}

export function huellaAnulacion(f: {
  emisor: string;
  numSerie: string;
  fecha: string;
  prevHuella: string;
  fechaHoraHusoGenRegistro: string;
}): string {
  return sha256Upper(
    `IDEmisorFacturaAnulada=${f.emisor.trim()}&NumSerieFacturaAnulada=${f.numSerie.trim()}` +
      `&FechaExpedicionFacturaAnulada=${f.fecha.trim()}&Huella=${f.prevHuella.trim()}` +
      `&FechaHoraHusoGenRegistro=${f.fechaHoraHusoGenRegistro.trim()}`,
  );
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The SistemaInformatico block; each installation number is a SIF with its own chain. */
const sistema = (numeroInstalacion = '0001') =>
  `<sum1:SistemaInformatico><sum1:NombreRazon>TPV Pruebas SL</sum1:NombreRazon><sum1:NIF>B12345674</sum1:NIF><sum1:NombreSistemaInformatico>TPV Test</sum1:NombreSistemaInformatico><sum1:IdSistemaInformatico>TT</sum1:IdSistemaInformatico><sum1:Version>1.0.0</sum1:Version><sum1:NumeroInstalacion>${esc(numeroInstalacion)}</sum1:NumeroInstalacion><sum1:TipoUsoPosibleSoloVerifactu>S</sum1:TipoUsoPosibleSoloVerifactu><sum1:TipoUsoPosibleMultiOT>N</sum1:TipoUsoPosibleMultiOT><sum1:IndicadorMultiplesOT>N</sum1:IndicadorMultiplesOT></sum1:SistemaInformatico>`;

function encadenamiento(prev: PrevLink | null): string {
  if (!prev) return '<sum1:Encadenamiento><sum1:PrimerRegistro>S</sum1:PrimerRegistro></sum1:Encadenamiento>';
  return (
    `<sum1:Encadenamiento><sum1:RegistroAnterior><sum1:IDEmisorFactura>${esc(prev.emisor)}</sum1:IDEmisorFactura>` +
    `<sum1:NumSerieFactura>${esc(prev.numSerie)}</sum1:NumSerieFactura>` +
    `<sum1:FechaExpedicionFactura>${prev.fecha}</sum1:FechaExpedicionFactura>` +
    `<sum1:Huella>${prev.huella}</sum1:Huella></sum1:RegistroAnterior></sum1:Encadenamiento>`
  );
}

export interface AltaOptions extends InvoiceId {
  nombreRazonEmisor?: string;
  tipoFactura?: string;
  /** Lines: base and cuota as written; tipo is the rate. */
  lines?: Array<{ base: string; tipo: string; cuota: string }>;
  cuotaTotal?: string;
  importeTotal?: string;
  prev: PrevLink | null;
  fechaHoraHusoGenRegistro: string;
  subsanacion?: 'S' | 'N';
  rechazoPrevio?: 'S' | 'N' | 'X';
  /** Replaces the computed huella (to test 2000). */
  huellaOverride?: string;
  destinatarioNif?: string;
  /** SistemaInformatico/NumeroInstalacion (default 0001). */
  numeroInstalacion?: string;
  /** Raw XML after TipoFactura (TipoRectificativa … FechaOperacion, in the XSD's order). */
  afterTipoFactura?: string;
  /** Raw XML after DescripcionOperacion (FacturaSimplificadaArt7273 … Tercero). */
  afterDescripcion?: string;
  /** Raw Destinatarios block, replacing the one destinatarioNif builds. */
  destinatariosXml?: string;
  /** Raw XML after Destinatarios (Cupon). */
  afterDestinatarios?: string;
  /** Raw DetalleDesglose elements, replacing `lines`. */
  desgloseXml?: string;
  /** Raw XML after FechaHoraHusoGenRegistro (NumRegistroAcuerdoFacturacion). */
  afterGenRegistro?: string;
}

export interface BuiltRecord {
  xml: string;
  huella: string;
  id: InvoiceId;
  tipo: 'alta' | 'anulacion';
}

export function buildAlta(o: AltaOptions): BuiltRecord {
  const tipoFactura = o.tipoFactura ?? (o.destinatarioNif ? 'F1' : 'F2');
  const lines = o.lines ?? [{ base: '100.00', tipo: '21', cuota: '21.00' }];
  const cuotaTotal = o.cuotaTotal ?? '21.00';
  const importeTotal = o.importeTotal ?? '121.00';
  const huella =
    o.huellaOverride ??
    huellaAlta({
      emisor: o.emisor,
      numSerie: o.numSerie,
      fecha: o.fecha,
      tipoFactura,
      cuotaTotal,
      importeTotal,
      prevHuella: o.prev?.huella ?? '',
      fechaHoraHusoGenRegistro: o.fechaHoraHusoGenRegistro,
    });
  const desglose = o.desgloseXml ?? lines
    .map(
      (l) =>
        `<sum1:DetalleDesglose><sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>01</sum1:ClaveRegimen>` +
        `<sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion><sum1:TipoImpositivo>${l.tipo}</sum1:TipoImpositivo>` +
        `<sum1:BaseImponibleOimporteNoSujeto>${l.base}</sum1:BaseImponibleOimporteNoSujeto>` +
        `<sum1:CuotaRepercutida>${l.cuota}</sum1:CuotaRepercutida></sum1:DetalleDesglose>`,
    )
    .join('');
 const dest = o.destinatariosXml !== undefined ? o.destinatariosXml : o.destinatarioNif
    ? `<sum1:Destinatarios><sum1:IDDestinatario><sum1:NombreRazon>Cliente</sum1:NombreRazon><sum1:NIF>${o.destinatarioNif}</sum1:NIF></sum1:IDDestinatario></sum1:Destinatarios>`
    : '';
  const xml =
    `<sum:RegistroFactura><sum1:RegistroAlta><sum1:IDVersion>1.0</sum1:IDVersion>` +
    `<sum1:IDFactura><sum1:IDEmisorFactura>${o.emisor}</sum1:IDEmisorFactura>` +
    `<sum1:NumSerieFactura>${esc(o.numSerie)}</sum1:NumSerieFactura>` +
    `<sum1:FechaExpedicionFactura>${o.fecha}</sum1:FechaExpedicionFactura></sum1:IDFactura>` +
    `<sum1:NombreRazonEmisor>${esc(o.nombreRazonEmisor ?? 'COMERCIAL DEMO SL')}</sum1:NombreRazonEmisor>` +
    (o.subsanacion ? `<sum1:Subsanacion>${o.subsanacion}</sum1:Subsanacion>` : '') +
    (o.rechazoPrevio ? `<sum1:RechazoPrevio>${o.rechazoPrevio}</sum1:RechazoPrevio>` : '') +
    `<sum1:TipoFactura>${tipoFactura}</sum1:TipoFactura>` +
    (o.afterTipoFactura ?? '') +
    `<sum1:DescripcionOperacion>Venta en tienda</sum1:DescripcionOperacion>` +
    (o.afterDescripcion ?? '') +
    dest +
    (o.afterDestinatarios ?? '') +
    `<sum1:Desglose>${desglose}</sum1:Desglose>` +
    `<sum1:CuotaTotal>${cuotaTotal}</sum1:CuotaTotal><sum1:ImporteTotal>${importeTotal}</sum1:ImporteTotal>` +
    encadenamiento(o.prev) +
    sistema(o.numeroInstalacion) +
    `<sum1:FechaHoraHusoGenRegistro>${o.fechaHoraHusoGenRegistro}</sum1:FechaHoraHusoGenRegistro>` +
    (o.afterGenRegistro ?? '') +
    `<sum1:TipoHuella>01</sum1:TipoHuella><sum1:Huella>${huella}</sum1:Huella>` +
    `</sum1:RegistroAlta></sum:RegistroFactura>`;
  return { xml, huella, id: { emisor: o.emisor, numSerie: o.numSerie, fecha: o.fecha }, tipo: 'alta' };
}

export interface AnulacionOptions extends InvoiceId {
  prev: PrevLink | null;
  fechaHoraHusoGenRegistro: string;
  rechazoPrevio?: 'S' | 'N';
  sinRegistroPrevio?: 'S' | 'N';
  huellaOverride?: string;
  numeroInstalacion?: string;
}

export function buildAnulacion(o: AnulacionOptions): BuiltRecord {
  const huella =
    o.huellaOverride ??
    huellaAnulacion({
      emisor: o.emisor,
      numSerie: o.numSerie,
      fecha: o.fecha,
      prevHuella: o.prev?.huella ?? '',
      fechaHoraHusoGenRegistro: o.fechaHoraHusoGenRegistro,
    });
  const xml =
    `<sum:RegistroFactura><sum1:RegistroAnulacion><sum1:IDVersion>1.0</sum1:IDVersion>` +
    `<sum1:IDFactura><sum1:IDEmisorFacturaAnulada>${o.emisor}</sum1:IDEmisorFacturaAnulada>` +
    `<sum1:NumSerieFacturaAnulada>${esc(o.numSerie)}</sum1:NumSerieFacturaAnulada>` +
    `<sum1:FechaExpedicionFacturaAnulada>${o.fecha}</sum1:FechaExpedicionFacturaAnulada></sum1:IDFactura>` +
    (o.sinRegistroPrevio ? `<sum1:SinRegistroPrevio>${o.sinRegistroPrevio}</sum1:SinRegistroPrevio>` : '') +
    (o.rechazoPrevio ? `<sum1:RechazoPrevio>${o.rechazoPrevio}</sum1:RechazoPrevio>` : '') +
    encadenamiento(o.prev) +
    sistema(o.numeroInstalacion) +
    `<sum1:FechaHoraHusoGenRegistro>${o.fechaHoraHusoGenRegistro}</sum1:FechaHoraHusoGenRegistro>` +
    `<sum1:TipoHuella>01</sum1:TipoHuella><sum1:Huella>${huella}</sum1:Huella>` +
    `</sum1:RegistroAnulacion></sum:RegistroFactura>`;
  return { xml, huella, id: { emisor: o.emisor, numSerie: o.numSerie, fecha: o.fecha }, tipo: 'anulacion' };
}

export function buildEnvelope(o: {
  obligado: { nif: string; nombre: string };
  records: Array<BuiltRecord | string>;
  representante?: { nif: string; nombre: string };
  incidencia?: boolean;
  /** RemisionVoluntaria/FechaFinVeriFactu. */
  fechaFinVeriFactu?: string;
  /** RemisionRequerimiento/RefRequerimiento (a non-VERI*FACTU system answering a requerimiento). */
  refRequerimiento?: string;
  /** RemisionRequerimiento/FinRequerimiento (with refRequerimiento). */
  finRequerimiento?: string;
}): string {
  const rep = o.representante
    ? `<sum1:Representante><sum1:NombreRazon>${esc(o.representante.nombre)}</sum1:NombreRazon><sum1:NIF>${o.representante.nif}</sum1:NIF></sum1:Representante>`
    : '';
  const voluntaria =
    (o.fechaFinVeriFactu ? `<sum1:FechaFinVeriFactu>${o.fechaFinVeriFactu}</sum1:FechaFinVeriFactu>` : '') +
    (o.incidencia ? '<sum1:Incidencia>S</sum1:Incidencia>' : '');
  const rv = voluntaria ? `<sum1:RemisionVoluntaria>${voluntaria}</sum1:RemisionVoluntaria>` : '';
  const rr = o.refRequerimiento
    ? `<sum1:RemisionRequerimiento><sum1:RefRequerimiento>${esc(o.refRequerimiento)}</sum1:RefRequerimiento>` +
      (o.finRequerimiento ? `<sum1:FinRequerimiento>${o.finRequerimiento}</sum1:FinRequerimiento>` : '') +
      `</sum1:RemisionRequerimiento>`
    : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>` +
    `<soapenv:Envelope xmlns:soapenv="${NS_SOAP}" xmlns:sum="${NS_LR}" xmlns:sum1="${NS_SI}">` +
    `<soapenv:Header/><soapenv:Body><sum:RegFactuSistemaFacturacion><sum:Cabecera>` +
    `<sum1:ObligadoEmision><sum1:NombreRazon>${esc(o.obligado.nombre)}</sum1:NombreRazon><sum1:NIF>${o.obligado.nif}</sum1:NIF></sum1:ObligadoEmision>` +
    rep +
    rv +
    rr +
    `</sum:Cabecera>` +
    o.records.map((r) => (typeof r === 'string' ? r : r.xml)).join('') +
    `</sum:RegFactuSistemaFacturacion></soapenv:Body></soapenv:Envelope>`
  );
}

/** `YYYY-MM-DDThh:mm:ss+01:00` for a UTC instant, rendered in a fixed offset (tests pick winter dates). */
export function isoWithOffset(d: Date, offsetMinutes = 60): string {
  const local = new Date(d.getTime() + offsetMinutes * 60_000);
  const sign = offsetMinutes >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local.toISOString().slice(0, 19)}${sign}${hh}:${mm}`;
}

/** DD-MM-YYYY of a UTC date. */
export function ddmmyyyy(d: Date): string {
  const iso = d.toISOString();
  return `${iso.slice(8, 10)}-${iso.slice(5, 7)}-${iso.slice(0, 4)}`;
}

/**
 * Keeps a per-issuer chain the way a SIF would: each new record links to the
 * previously generated one, whatever AEAT answered for it.
 */
export class ChainBuilder {
  private prev: PrevLink | null = null;
  private seq = 0;
  private t: number;

  constructor(
    readonly emisor: string,
    startAt: Date,
    readonly series = 'T',
    /** The SIF (installation) this chain belongs to. */
    readonly numeroInstalacion = '0001',
  ) {
    this.t = startAt.getTime();
  }

  get last(): PrevLink | null {
    return this.prev;
  }

  /** Force the link the next record will carry (to test broken chains). */
  setPrev(p: PrevLink | null): void {
    this.prev = p;
  }

  nextNumSerie(): string {
    this.seq += 1;
    return `${this.series}-${String(this.seq).padStart(6, '0')}`;
  }

  private nextTime(): string {
    this.t += 1000;
    return isoWithOffset(new Date(this.t));
  }

  alta(o: Partial<AltaOptions> = {}): BuiltRecord {
    const numSerie = o.numSerie ?? this.nextNumSerie();
    const fecha = o.fecha ?? ddmmyyyy(new Date(this.t));
    const rec = buildAlta({
      numeroInstalacion: this.numeroInstalacion,
      ...o,
      emisor: o.emisor ?? this.emisor,
      numSerie,
      fecha,
      prev: o.prev !== undefined ? o.prev : this.prev,
      fechaHoraHusoGenRegistro: o.fechaHoraHusoGenRegistro ?? this.nextTime(),
    });
    this.prev = { ...rec.id, huella: rec.huella };
    return rec;
  }

  anulacion(id: InvoiceId, o: Partial<AnulacionOptions> = {}): BuiltRecord {
    const rec = buildAnulacion({
      numeroInstalacion: this.numeroInstalacion,
      ...o,
      ...id,
      prev: o.prev !== undefined ? o.prev : this.prev,
      fechaHoraHusoGenRegistro: o.fechaHoraHusoGenRegistro ?? this.nextTime(),
    });
    this.prev = { ...rec.id, huella: rec.huella };
    return rec;
  }
}
