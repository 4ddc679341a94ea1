// Reference builder of RegistroAlta for the differential tests: the production builder as it was
// before the issuing hot path was tuned (engine/src/regimes/verifactu/record/registro.ts, then engine/src/verifactu/registro.ts, at commit 1951751), with
// its own hash (createHash over the `Name=value&…` string of every field trimmed), its own
// escaping (one regular-expression replace) and its own canonical amounts and rates (regular
// expressions), so that a change to any of the production pieces is compared with this one.
import * as crypto from 'node:crypto';
import type { IdFacturaReferida, Persona } from '../../../../src-shared/api/verifactu';
import { fechaHoraHusoGenRegistro } from '../../../../engine/src/issuing/fecha-hora';
import {
  NS_SUMINISTRO_INFORMACION,
  type BuildRegistroAltaInput,
  type RegistroAltaConstruido,
  type RegistroAnterior,
  type SistemaInformatico,
} from '../../../../engine/src/regimes/verifactu/record/registro';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };
function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (c) => ENTITIES[c] ?? c);
}

const IMPORTE = /^(-?)(\d{1,12})(?:\.(\d{1,2}))?$/;
const TIPO = /^(\d{1,3})(?:\.(\d{1,2}))?$/;
function render(negative: boolean, int: string, frac: string | undefined): string {
  const intPart = int.replace(/^0+(?=\d)/, '');
  const fracPart = (frac ?? '').padEnd(2, '0');
  const isZero = intPart === '0' && fracPart === '00';
  return (negative && !isZero ? '-' : '') + intPart + '.' + fracPart;
}
function importeCanonico(value: string): string {
  const m = IMPORTE.exec(value);
  if (m === null) throw new RangeError(`not an amount: "${value}"`);
  return render(m[1] === '-', m[2] ?? '0', m[3]);
}
function tipoCanonico(value: string): string {
  const m = TIPO.exec(value);
  if (m === null) throw new RangeError(`not a rate: "${value}"`);
  return render(false, m[1] ?? '0', m[2]);
}

function huellaAlta(c: Record<string, string | undefined>): string {
  const v = (x: string | undefined): string => (x ?? '').trim();
  const cadena =
    'IDEmisorFactura=' + v(c.IDEmisorFactura) + '&NumSerieFactura=' + v(c.NumSerieFactura) +
    '&FechaExpedicionFactura=' + v(c.FechaExpedicionFactura) + '&TipoFactura=' + v(c.TipoFactura) +
    '&CuotaTotal=' + v(c.CuotaTotal) + '&ImporteTotal=' + v(c.ImporteTotal) + '&Huella=' + v(c.Huella) +
    '&FechaHoraHusoGenRegistro=' + v(c.FechaHoraHusoGenRegistro);
  return crypto.createHash('sha256').update(cadena, 'utf8').digest('hex').toUpperCase();
}

// ---------------------------------------------------------------- XML pieces

/** Element with free text: escaped. */
function el(name: string, value: string): string {
  return '<sum1:' + name + '>' + escapeXml(value) + '</sum1:' + name + '>';
}

/**
 * Element with a token that cannot hold XML metacharacters by construction: schema-validated NIFs,
 * dates and codes, canonical amounts, generated hashes and timestamps. Skipping the scan matters
 * on the hot path; anything else goes through el().
 */
function tok(name: string, value: string): string {
  return '<sum1:' + name + '>' + value + '</sum1:' + name + '>';
}

/** NumSerieFactura: serie and numero concatenated, trimmed as AEAT stores it. */
function numSerieFactura(serie: string | undefined, numero: string): string {
  return ((serie ?? '') + numero).trim();
}

function persona(p: Persona): string {
  let x = el('NombreRazon', p.nombre.trim());
  if (p.nif !== undefined) {
    x += tok('NIF', p.nif);
  } else if (p.idOtro !== undefined) {
    x += '<sum1:IDOtro>';
    if (p.idOtro.codigoPais !== undefined) x += tok('CodigoPais', p.idOtro.codigoPais);
    x += tok('IDType', p.idOtro.idType) + el('ID', p.idOtro.id.trim()) + '</sum1:IDOtro>';
  }
  return x;
}

function facturasReferidas(tag: string, nif: string, facturas: readonly IdFacturaReferida[]): string {
  let x = '';
  for (const f of facturas) {
    x +=
      '<sum1:' + tag + '>' +
      tok('IDEmisorFactura', nif) +
      el('NumSerieFactura', numSerieFactura(f.serie, f.numero)) +
      tok('FechaExpedicionFactura', f.fechaExpedicion) +
      '</sum1:' + tag + '>';
  }
  return x;
}

function encadenamiento(anterior: RegistroAnterior | null): string {
  if (anterior === null) return '<sum1:Encadenamiento><sum1:PrimerRegistro>S</sum1:PrimerRegistro></sum1:Encadenamiento>';
  return (
    '<sum1:Encadenamiento><sum1:RegistroAnterior>' +
    el('IDEmisorFactura', anterior.idEmisorFactura) +
    el('NumSerieFactura', anterior.numSerieFactura) +
    el('FechaExpedicionFactura', anterior.fechaExpedicionFactura) +
    el('Huella', anterior.huella) +
    '</sum1:RegistroAnterior></sum1:Encadenamiento>'
  );
}

// The SistemaInformatico block is the same for every record of an installation: build it once.
const sistemaCache = new WeakMap<SistemaInformatico, string>();

function sistemaInformatico(s: SistemaInformatico): string {
  let x = sistemaCache.get(s);
  if (x === undefined) {
    x =
      '<sum1:SistemaInformatico>' +
      el('NombreRazon', s.nombreRazon.trim()) +
      el('NIF', s.nif) +
      el('NombreSistemaInformatico', s.nombreSistemaInformatico.trim()) +
      el('IdSistemaInformatico', s.idSistemaInformatico) +
      el('Version', s.version.trim()) +
      el('NumeroInstalacion', s.numeroInstalacion.trim()) +
      el('TipoUsoPosibleSoloVerifactu', s.tipoUsoPosibleSoloVerifactu) +
      el('TipoUsoPosibleMultiOT', s.tipoUsoPosibleMultiOT) +
      el('IndicadorMultiplesOT', s.indicadorMultiplesOT) +
      '</sum1:SistemaInformatico>';
    sistemaCache.set(s, x);
  }
  return x;
}

/** Macrodato = S when |ImporteTotal| ≥ 100,000,000.00 (AEAT 1138/1139): 9+ integer digits. */
function esMacrodato(importeCanon: string): boolean {
  const start = importeCanon.charCodeAt(0) === 45 ? 1 : 0; // '-'
  return importeCanon.indexOf('.') - start >= 9;
}

// ---------------------------------------------------------------- RegistroAlta

export function buildRegistroAltaReferencia(input: BuildRegistroAltaInput): RegistroAltaConstruido {
  const { factura: f, anterior, sistema } = input;
  const cab = f.cabecera;
  const nif = f.emisor.nif;
  const numSerie = numSerieFactura(cab.serie, cab.numero);
  const cuotaTotal = importeCanonico(f.totales.cuotaTotal);
  const importeTotal = importeCanonico(f.totales.importeTotal);
  const fechaHora = fechaHoraHusoGenRegistro(input.generadoEn, input.zona);
  const huella = huellaAlta({
    IDEmisorFactura: nif,
    NumSerieFactura: numSerie,
    FechaExpedicionFactura: cab.fechaExpedicion,
    TipoFactura: cab.tipoFactura,
    CuotaTotal: cuotaTotal,
    ImporteTotal: importeTotal,
    Huella: anterior?.huella,
    FechaHoraHusoGenRegistro: fechaHora,
  });
  const esp = f.especial;

  let x =
    '<sum1:RegistroAlta xmlns:sum1="' + NS_SUMINISTRO_INFORMACION + '">' +
    '<sum1:IDVersion>1.0</sum1:IDVersion><sum1:IDFactura>' +
    tok('IDEmisorFactura', nif) +
    el('NumSerieFactura', numSerie) +
    tok('FechaExpedicionFactura', cab.fechaExpedicion) +
    '</sum1:IDFactura>';
  if (f.aux !== undefined) x += el('RefExterna', f.aux.refExterna.trim());
  x += el('NombreRazonEmisor', (input.emisorNombre ?? f.emisor.nombre).trim());
  if (input.subsanacion !== undefined) {
    x += '<sum1:Subsanacion>S</sum1:Subsanacion>';
    if (input.subsanacion.rechazoPrevio !== undefined) x += tok('RechazoPrevio', input.subsanacion.rechazoPrevio);
  }
  x += tok('TipoFactura', cab.tipoFactura);
  if (f.rectificativa !== undefined) x += tok('TipoRectificativa', f.rectificativa.tipo);
  if (f.facturasRectificadas !== undefined) {
    x += '<sum1:FacturasRectificadas>' + facturasReferidas('IDFacturaRectificada', nif, f.facturasRectificadas) + '</sum1:FacturasRectificadas>';
  }
  if (f.facturasSustituidas !== undefined) {
    x += '<sum1:FacturasSustituidas>' + facturasReferidas('IDFacturaSustituida', nif, f.facturasSustituidas) + '</sum1:FacturasSustituidas>';
  }
  const imp = f.rectificativa?.importes;
  if (imp !== undefined) {
    x += '<sum1:ImporteRectificacion>' + tok('BaseRectificada', importeCanonico(imp.baseRectificada)) + tok('CuotaRectificada', importeCanonico(imp.cuotaRectificada));
    if (imp.cuotaRecargoRectificada !== undefined) x += tok('CuotaRecargoRectificado', importeCanonico(imp.cuotaRecargoRectificada));
    x += '</sum1:ImporteRectificacion>';
  }
  if (cab.fechaOperacion !== undefined) x += tok('FechaOperacion', cab.fechaOperacion);
  x += el('DescripcionOperacion', cab.descripcion.trim());
  if (esp?.facturaSimplificadaArt7273 === true) x += '<sum1:FacturaSimplificadaArt7273>S</sum1:FacturaSimplificadaArt7273>';
  if (esp?.facturaSinIdentifDestinatarioArt61d === true) x += '<sum1:FacturaSinIdentifDestinatarioArt61d>S</sum1:FacturaSinIdentifDestinatarioArt61d>';
  if (esMacrodato(importeTotal)) x += '<sum1:Macrodato>S</sum1:Macrodato>';
  if (esp?.emitidaPor !== undefined) x += tok('EmitidaPorTerceroODestinatario', esp.emitidaPor);
  if (esp?.tercero !== undefined) x += '<sum1:Tercero>' + persona(esp.tercero) + '</sum1:Tercero>';
  if (f.destinatario !== undefined) {
    x += '<sum1:Destinatarios><sum1:IDDestinatario>' + persona(f.destinatario) + '</sum1:IDDestinatario></sum1:Destinatarios>';
  }
  if (esp?.cupon === true) x += '<sum1:Cupon>S</sum1:Cupon>';

  x += '<sum1:Desglose>';
  for (const d of f.detalleDesglose) {
    x += '<sum1:DetalleDesglose>';
    if (d.impuesto !== undefined) x += tok('Impuesto', d.impuesto);
    if (d.claveRegimen !== undefined) x += tok('ClaveRegimen', d.claveRegimen);
    if (d.calificacionOperacion !== undefined) x += tok('CalificacionOperacion', d.calificacionOperacion);
    else if (d.operacionExenta !== undefined) x += tok('OperacionExenta', d.operacionExenta);
    if (d.tipoImpositivo !== undefined) x += tok('TipoImpositivo', tipoCanonico(d.tipoImpositivo));
    x += tok('BaseImponibleOimporteNoSujeto', importeCanonico(d.baseImponible));
    if (d.cuotaRepercutida !== undefined) x += tok('CuotaRepercutida', importeCanonico(d.cuotaRepercutida));
    if (d.tipoRecargoEquivalencia !== undefined) x += tok('TipoRecargoEquivalencia', tipoCanonico(d.tipoRecargoEquivalencia));
    if (d.cuotaRecargoEquivalencia !== undefined) x += tok('CuotaRecargoEquivalencia', importeCanonico(d.cuotaRecargoEquivalencia));
    x += '</sum1:DetalleDesglose>';
  }
  x += '</sum1:Desglose>';

  x +=
    tok('CuotaTotal', cuotaTotal) +
    tok('ImporteTotal', importeTotal) +
    encadenamiento(anterior) +
    sistemaInformatico(sistema) +
    tok('FechaHoraHusoGenRegistro', fechaHora);
  if (esp?.numRegistroAcuerdoFacturacion !== undefined) x += el('NumRegistroAcuerdoFacturacion', esp.numRegistroAcuerdoFacturacion.trim());
  if (esp?.idAcuerdoSistemaInformatico !== undefined) x += el('IdAcuerdoSistemaInformatico', esp.idAcuerdoSistemaInformatico.trim());
  x += '<sum1:TipoHuella>01</sum1:TipoHuella>' + tok('Huella', huella) + '</sum1:RegistroAlta>';

  return {
    huella,
    fechaHoraHusoGenRegistro: fechaHora,
    numSerieFactura: numSerie,
    cuotaTotal,
    importeTotal,
    incidencia: input.incidencia === true,
    xml: x,
  };
}

