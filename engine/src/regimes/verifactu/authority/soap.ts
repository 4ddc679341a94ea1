// SOAP 1.1 envelope of RegFactuSistemaFacturacion (SuministroLR.xsd): Cabecera + 1–1000
// RegistroFactura, each wrapping one RegistroAlta or RegistroAnulacion built by registro.ts.
import { NS_SUMINISTRO_INFORMACION } from '../record/registro';
import { escapeXml } from '../record/xml-escape';

export const NS_SOAP_ENVELOPE = 'http://schemas.xmlsoap.org/soap/envelope/';
/** targetNamespace of SuministroLR.xsd, bound to the prefix `sum`. */
export const NS_SUMINISTRO_LR =
  'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroLR.xsd';
export const MAX_REGISTROS_POR_ENVIO = 1000;

export interface PersonaEs {
  nombreRazon: string;
  nif: string;
}

export interface RegFactuEnvelopeInput {
  obligado: PersonaEs;
  representante?: PersonaEs | undefined;
  /** Records generated during a technical incident: RemisionVoluntaria/Incidencia = S. */
  incidencia?: boolean | undefined;
  /** «NO VERI*FACTU» records sent on the AEAT's requirement: RemisionRequerimiento (FinRequerimiento S on the last). */
  requerimiento?: { ref: string; fin: boolean } | undefined;
  /** `sum1:RegistroAlta` / `sum1:RegistroAnulacion` elements, as stored byte for byte. */
  registros: readonly string[];
}

function persona(tag: string, p: PersonaEs): string {
  return (
    '<sum1:' + tag + '><sum1:NombreRazon>' + escapeXml(p.nombreRazon.trim()) + '</sum1:NombreRazon><sum1:NIF>' +
    escapeXml(p.nif) + '</sum1:NIF></sum1:' + tag + '>'
  );
}

const XML_DECLARATION = /^\s*<\?xml[^?]*\?>\s*/;

export function buildRegFactuSoapEnvelope(input: RegFactuEnvelopeInput): string {
  const n = input.registros.length;
  if (n < 1 || n > MAX_REGISTROS_POR_ENVIO) {
    throw new RangeError(`a submission carries 1 to ${MAX_REGISTROS_POR_ENVIO} records, not ${n}`);
  }
  let x =
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<soapenv:Envelope xmlns:soapenv="' + NS_SOAP_ENVELOPE + '" xmlns:sum="' + NS_SUMINISTRO_LR +
    '" xmlns:sum1="' + NS_SUMINISTRO_INFORMACION + '"><soapenv:Header/><soapenv:Body>' +
    '<sum:RegFactuSistemaFacturacion><sum:Cabecera>' + persona('ObligadoEmision', input.obligado);
  if (input.representante !== undefined) x += persona('Representante', input.representante);
  if (input.incidencia === true) x += '<sum1:RemisionVoluntaria><sum1:Incidencia>S</sum1:Incidencia></sum1:RemisionVoluntaria>';
  if (input.requerimiento !== undefined) {
    x +=
      '<sum1:RemisionRequerimiento><sum1:RefRequerimiento>' + escapeXml(input.requerimiento.ref) + '</sum1:RefRequerimiento>' +
      (input.requerimiento.fin ? '<sum1:FinRequerimiento>S</sum1:FinRequerimiento>' : '') + '</sum1:RemisionRequerimiento>';
  }
  x += '</sum:Cabecera>';
  for (const r of input.registros) {
    // A stored record may start with an XML declaration, which cannot appear inside a document.
    x += '<sum:RegistroFactura>' + r.replace(XML_DECLARATION, '') + '</sum:RegistroFactura>';
  }
  return x + '</sum:RegFactuSistemaFacturacion></soapenv:Body></soapenv:Envelope>';
}
