import { createHash } from 'node:crypto';
import { madridParts } from '../time';
import type { ResultCode } from './codes';

// Answers. Araba/Gipuzkoa: TicketBaiResponse exactly in the shape of the real
// Gipuzkoa answers kept in examples/gipuzkoa-responses (prefix ns2 bound to
// urn:ticketbai:emision, unqualified children, 4-space indentation, standalone="yes").

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `DD-MM-YYYY hh:mm:ss` in Europe/Madrid (FechaRecepcion, FechaPresentacion). */
export function fechaHora(d: Date): string {
  const p = madridParts(d);
  return `${pad(p.day)}-${pad(p.month)}-${p.year} ${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}

/** `TBAI` + a UUID (40 characters), the shape of Gipuzkoa's CSVs, derived from the id source. */
export function makeCsv(id: string): string {
  const h = createHash('sha256').update(`tbai-csv:${id}`).digest('hex');
  return `TBAI${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16] ?? '0', 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Numeric request id like Bizkaia's `eus-bizkaia-n3-identificativo` (e.g. 6421489). */
export function makeIdentificativo(id: string): string {
  const n = createHash('sha256').update(`lroe-id:${id}`).digest().readUInt32BE(0);
  return String(1_000_000 + (n % 9_000_000));
}

export interface SalidaInput {
  identificadorTbai: string | null;
  fechaRecepcion: string;
  estado: '00' | '01';
  resultados: ResultCode[];
  csv: string | null;
}

export function ticketBaiResponseXml(s: SalidaInput): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
    '<ns2:TicketBaiResponse xmlns:ns2="urn:ticketbai:emision">',
    '    <Salida>',
  ];
  if (s.identificadorTbai) lines.push(`        <IdentificadorTBAI>${escapeXml(s.identificadorTbai)}</IdentificadorTBAI>`);
  lines.push(`        <FechaRecepcion>${s.fechaRecepcion}</FechaRecepcion>`);
  lines.push(`        <Estado>${s.estado}</Estado>`);
  lines.push(`        <Descripcion>${s.estado === '00' ? 'Recibido' : 'Rechazado'}</Descripcion>`);
  lines.push(`        <Azalpena>${s.estado === '00' ? 'Jasota' : 'Baztertua'}</Azalpena>`);
  for (const r of s.resultados) {
    lines.push('        <ResultadosValidacion>');
    lines.push(`            <Codigo>${escapeXml(r.codigo)}</Codigo>`);
    lines.push(`            <Descripcion>${escapeXml(r.descripcion)}</Descripcion>`);
    lines.push(`            <Azalpena>${escapeXml(r.azalpena)}</Azalpena>`);
    lines.push('        </ResultadosValidacion>');
  }
  if (s.csv) lines.push(`        <CSV>${escapeXml(s.csv)}</CSV>`);
  lines.push('    </Salida>', '</ns2:TicketBaiResponse>', '');
  return lines.join('\n');
}

// ---- Bizkaia LROE ----

export const LROE_NS_BASE = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas/';

export type LroeModel = '240' | '140';
export type LroeOp = 'alta' | 'anulacion';

export const LROE_ROOTS: Readonly<
  Record<LroeModel, Record<LroeOp, { peticion: string; peticionNs: string; respuesta: string; respuestaNs: string; records: [string, string] }>>
> = Object.freeze({
  '240': {
    alta: {
      peticion: 'LROEPJ240FacturasEmitidasConSGAltaPeticion',
      peticionNs: LROE_NS_BASE + 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd',
      respuesta: 'LROEPJ240FacturasEmitidasConSGAltaRespuesta',
      respuestaNs: LROE_NS_BASE + 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaRespuesta_V1_0_1.xsd',
      records: ['FacturasEmitidas', 'FacturaEmitida'],
    },
    anulacion: {
      peticion: 'LROEPJ240FacturasEmitidasConSGAnulacionPeticion',
      peticionNs: LROE_NS_BASE + 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd',
      respuesta: 'LROEPJ240FacturasEmitidasConSGAnulacionRespuesta',
      respuestaNs: LROE_NS_BASE + 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionRespuesta_V1_0_0.xsd',
      records: ['FacturasEmitidas', 'FacturaEmitida'],
    },
  },
  '140': {
    alta: {
      peticion: 'LROEPF140IngresosConFacturaConSGAltaPeticion',
      peticionNs: LROE_NS_BASE + 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd',
      respuesta: 'LROEPF140IngresosConFacturaConSGAltaRespuesta',
      respuestaNs: LROE_NS_BASE + 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaRespuesta_V1_0_2.xsd',
      records: ['Ingresos', 'Ingreso'],
    },
    anulacion: {
      peticion: 'LROEPF140IngresosConFacturaConSGAnulacionPeticion',
      peticionNs: LROE_NS_BASE + 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd',
      respuesta: 'LROEPF140IngresosConFacturaConSGAnulacionRespuesta',
      respuestaNs: LROE_NS_BASE + 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionRespuesta_V1_0_0.xsd',
      records: ['Ingresos', 'Ingreso'],
    },
  },
});

export interface LroeCabecera {
  modelo: string;
  capitulo: string;
  subcapitulo: string | null;
  operacion: string;
  version: string;
  ejercicio: string;
  nif: string;
  nombre: string;
}

export type EstadoRegistro = 'Correcto' | 'AceptadoConErrores' | 'Incorrecto';

export interface LroeRegistro {
  /** IDFactura when the record could be read; otherwise the base64 received is echoed. */
  id: { serie: string; num: string; fecha: string } | { base64: string };
  estado: EstadoRegistro;
  codigo: string | null;
  es: string | null;
  eu: string | null;
}

export function lroeResponseXml(
  model: LroeModel,
  op: LroeOp,
  cab: LroeCabecera,
  presentacion: { fecha: string; nif: string } | null,
  registros: LroeRegistro[],
): string {
  const root = LROE_ROOTS[model][op];
  const L: string[] = [
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
    `<ns2:${root.respuesta} xmlns:ns2="${root.respuestaNs}">`,
    '    <Cabecera>',
    `        <Modelo>${escapeXml(cab.modelo)}</Modelo>`,
    `        <Capitulo>${escapeXml(cab.capitulo)}</Capitulo>`,
  ];
  if (cab.subcapitulo) L.push(`        <Subcapitulo>${escapeXml(cab.subcapitulo)}</Subcapitulo>`);
  L.push(
    `        <Operacion>${escapeXml(cab.operacion)}</Operacion>`,
    `        <Version>${escapeXml(cab.version)}</Version>`,
    `        <Ejercicio>${escapeXml(cab.ejercicio)}</Ejercicio>`,
    '        <ObligadoTributario>',
    `            <NIF>${escapeXml(cab.nif)}</NIF>`,
    `            <ApellidosNombreRazonSocial>${escapeXml(cab.nombre)}</ApellidosNombreRazonSocial>`,
    '        </ObligadoTributario>',
    '    </Cabecera>',
  );
  if (presentacion) {
    L.push(
      '    <DatosPresentacion>',
      `        <FechaPresentacion>${presentacion.fecha}</FechaPresentacion>`,
      `        <NIFPresentador>${escapeXml(presentacion.nif)}</NIFPresentador>`,
      '    </DatosPresentacion>',
    );
  }
  if (registros.length > 0) {
    L.push('    <Registros>');
    for (const r of registros) {
      L.push('        <Registro>', '            <Identificador>');
      if ('base64' in r.id) {
        const tag = op === 'alta' ? 'TicketBai' : 'AnulacionTicketBai';
        L.push(`                <${tag}>${r.id.base64}</${tag}>`);
      } else {
        L.push('                <IDFactura>');
        if (r.id.serie) L.push(`                    <SerieFactura>${escapeXml(r.id.serie)}</SerieFactura>`);
        L.push(
          `                    <NumFactura>${escapeXml(r.id.num)}</NumFactura>`,
          `                    <FechaExpedicionFactura>${escapeXml(r.id.fecha)}</FechaExpedicionFactura>`,
          '                </IDFactura>',
        );
      }
      L.push('            </Identificador>', '            <SituacionRegistro>', `                <EstadoRegistro>${r.estado}</EstadoRegistro>`);
      if (r.codigo) L.push(`                <CodigoErrorRegistro>${escapeXml(r.codigo)}</CodigoErrorRegistro>`);
      if (r.es) L.push(`                <DescripcionErrorRegistroES>${escapeXml(r.es)}</DescripcionErrorRegistroES>`);
      if (r.eu) L.push(`                <DescripcionErrorRegistroEU>${escapeXml(r.eu)}</DescripcionErrorRegistroEU>`);
      L.push('            </SituacionRegistro>', '        </Registro>');
    }
    L.push('    </Registros>');
  }
  L.push(`</ns2:${root.respuesta}>`, '');
  return L.join('\n');
}
