import { XMLParser } from 'fast-xml-parser';
import { scanAeatReply } from './aeat-reply-scan';

export type EstadoRegistroAeat = 'Correcto' | 'AceptadoConErrores' | 'Incorrecto';
/** EstadoRegistroDuplicado: what AEAT holds for the key (schema: Correcta, AceptadaConErrores, Anulada). */
export type EstadoDuplicado = 'Correcta' | 'AceptadaConErrores' | 'Anulada';

export interface RespuestaLinea {
  idEmisorFactura: string;
  numSerieFactura: string;
  fechaExpedicionFactura: string;
  operacion: 'Alta' | 'Anulacion';
  estado: EstadoRegistroAeat;
  codigo?: string;
  descripcion?: string;
  /** Present on a 3000 duplicate: the verdict AEAT holds for the original. */
  duplicado?: { estado: EstadoDuplicado; codigo?: string; descripcion?: string; idPeticion?: string };
}

export type AeatReply =
  | { kind: 'respuesta'; csv?: string; tiempoEsperaEnvio: number; estadoEnvio: string; lineas: RespuestaLinea[] }
  | { kind: 'fault'; faultcode: string; faultstring: string; codigo?: string };

export class MalformedReply extends Error {}

// A 1,000-line answer is ≈ 370 kB: no path strings for the callbacks (`jPath: false`; isArray
// needs only the tag name) and the echoed header and presentation data left unparsed.
const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  jPath: false,
  ignoreDeclaration: true,
  stopNodes: ['*.Cabecera', '*.DatosPresentacion'],
  isArray: (name) => name === 'RespuestaLinea',
});

type Node = Record<string, unknown>;
const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

function estadoDuplicado(v: unknown): EstadoDuplicado {
  const s = text(v);
  // The schema says Correcta/AceptadaConErrores; real answers have been seen with the -o forms.
  if (s === 'Correcta' || s === 'Correcto') return 'Correcta';
  if (s === 'AceptadaConErrores' || s === 'AceptadoConErrores') return 'AceptadaConErrores';
  if (s === 'Anulada') return 'Anulada';
  throw new MalformedReply(`EstadoRegistroDuplicado desconocido: ${s ?? '(vacío)'}`);
}

function estado(v: unknown): EstadoRegistroAeat {
  const s = text(v);
  if (s === 'Correcto' || s === 'AceptadoConErrores' || s === 'Incorrecto') return s;
  throw new MalformedReply(`EstadoRegistro desconocido: ${s ?? '(vacío)'}`);
}

/**
 * Parses AEAT's SOAP answer: a RespuestaRegFactuSistemaFacturacion or a SOAP Fault. The answer in
 * its everyday shape is scanned (aeat-reply-scan.ts); anything else goes to the full parser.
 */
export function parseAeatReply(xml: string): AeatReply {
  return scanAeatReply(xml) ?? parseAeatReplyFully(xml);
}

/** The full XML parser's reading: every answer, and the reason when one cannot be read. */
export function parseAeatReplyFully(xml: string): AeatReply {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (error) {
    throw new MalformedReply(`respuesta no es XML: ${(error as Error).message}`);
  }
  const body = obj(obj(doc.Envelope)?.Body);
  if (!body) throw new MalformedReply('respuesta sin Envelope/Body');
  const fault = obj(body.Fault);
  if (fault) {
    const faultstring = text(fault.faultstring) ?? '';
    const codigo = /Codigo\[(\d+)\]/.exec(faultstring)?.[1];
    return { kind: 'fault', faultcode: text(fault.faultcode) ?? '', faultstring, ...(codigo ? { codigo } : {}) };
  }
  const r = obj(body.RespuestaRegFactuSistemaFacturacion);
  if (!r) throw new MalformedReply('respuesta sin RespuestaRegFactuSistemaFacturacion');
  const espera = Number(text(r.TiempoEsperaEnvio));
  const estadoEnvio = text(r.EstadoEnvio);
  if (!Number.isFinite(espera) || !estadoEnvio) throw new MalformedReply('respuesta sin TiempoEsperaEnvio o EstadoEnvio');
  const lineas = ((r.RespuestaLinea as unknown[] | undefined) ?? []).map((raw): RespuestaLinea => {
    const l = obj(raw) ?? {};
    const id = obj(l.IDFactura) ?? {};
    const op = text(obj(l.Operacion)?.TipoOperacion);
    const dup = obj(l.RegistroDuplicado);
    const codigo = text(l.CodigoErrorRegistro);
    const descripcion = text(l.DescripcionErrorRegistro);
    const idEmisor = text(id.IDEmisorFactura);
    const numSerie = text(id.NumSerieFactura);
    const fecha = text(id.FechaExpedicionFactura);
    if (!idEmisor || !numSerie || !fecha || (op !== 'Alta' && op !== 'Anulacion')) {
      throw new MalformedReply('RespuestaLinea incompleta');
    }
    const dupCodigo = dup ? text(dup.CodigoErrorRegistro) : undefined;
    const dupDesc = dup ? text(dup.DescripcionErrorRegistro) : undefined;
    const dupPeticion = dup ? text(dup.IdPeticionRegistroDuplicado) : undefined;
    return {
      idEmisorFactura: idEmisor,
      numSerieFactura: numSerie,
      fechaExpedicionFactura: fecha,
      operacion: op,
      estado: estado(l.EstadoRegistro),
      ...(codigo ? { codigo } : {}),
      ...(descripcion ? { descripcion } : {}),
      ...(dup
        ? {
            duplicado: {
              estado: estadoDuplicado(dup.EstadoRegistroDuplicado),
              ...(dupCodigo ? { codigo: dupCodigo } : {}),
              ...(dupDesc ? { descripcion: dupDesc } : {}),
              ...(dupPeticion ? { idPeticion: dupPeticion } : {}),
            },
          }
        : {}),
    };
  });
  const csv = text(r.CSV);
  return { kind: 'respuesta', ...(csv ? { csv } : {}), tiempoEsperaEnvio: espera, estadoEnvio, lineas };
}
