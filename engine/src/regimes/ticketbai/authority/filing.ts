import { gunzipSync } from 'node:zlib';
import { XMLParser } from 'fast-xml-parser';
import type { Entorno } from '../../../../../src-shared/api/common';
import { isPersonaFisica } from '../../../../../src-shared/nif';
import type { AuthorityAdapter, BuildContext, Interpretation, OutgoingRecord, SentRequest } from '../../../core/authority';
import { postHttp, TransportError } from '../../../core/transport';
import type { Verdict } from '../../../core/authority';
import type { TbaiEndpoints } from '../config';
import { buildLroeAlta, buildLroeAnulacion } from './lroe';

/** Service paths below each province's base (FACTS.md; the emulator mirrors them). */
const REST_PATHS = {
  gipuzkoa: { alta: '/sarrerak/alta', anulacion: '/sarrerak/baja', zuzendu: '/sarrerak/zuzendu-alta' },
  araba: { alta: '/TicketBAI/v1/facturas/', anulacion: '/TicketBAI/v1/anulaciones/', zuzendu: '/TicketBAI/v1/facturas/subsanarmodificar' },
} as const;
const LROE_PATH = '/N3B4000M/aurkezpena';
/** LROE "Registro duplicado." (CodigoErrorRegistro). */
const LROE_DUPLICADO = 'B4_2000003';

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'ResultadosValidacion' || name === 'Registro',
});
type Node = Record<string, unknown>;
const obj = (v: unknown): Node | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** The kind of document a stored record XML is, by its root element. */
function documentKind(xml: string): 'alta' | 'anulacion' | 'zuzendu' {
  const root = /<([A-Za-z0-9_]+:)?([A-Za-z]+)[\s>]/.exec(xml.replace(/^<\?xml[^>]*>\s*/, ''))?.[2] ?? '';
  if (root === 'AnulaTicketBai') return 'anulacion';
  if (root === 'TicketBai') return 'alta';
  return 'zuzendu';
}

/** TicketBAI's own record fields for the reads (tipoRespuestaTbai, codigo…, mensaje…, idRegistroTbai). */
function tbaiExtra(estado: string, codigo: string | undefined, mensaje: string | undefined, registro: string | undefined) {
  return {
    tipoRespuestaTbai: estado,
    ...(codigo ? { codigoRespuestaTbai: codigo } : {}),
    ...(mensaje ? { mensajeRespuestaTbai: mensaje } : {}),
    ...(registro ? { idRegistroTbai: registro } : {}),
  };
}

/** XML text back to its characters (the few entities escapeTexto and C14N write). */
function unescapeXml(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(?:amp|lt|gt|quot|apos|#x([0-9A-Fa-f]+)|#(\d+));/g, (m, hex: string | undefined, dec: string | undefined) => {
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    if (dec) return String.fromCodePoint(parseInt(dec, 10));
    return ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" } as Record<string, string>)[m] ?? m;
  });
}

// CabeceraFactura (alta) or IDFactura/CabeceraFactura (anulación): the invoice's own identity
// comes first in both; later SerieFactura/NumFactura elements belong to rectified invoices.
const CABECERA = /<CabeceraFactura>\s*(?:<SerieFactura>([^<]*)<\/SerieFactura>\s*)?<NumFactura>([^<]*)<\/NumFactura>\s*<FechaExpedicionFactura>([^<]*)</;

/** Serie, number and date of the invoice a signed TicketBAI document is about. */
export function identidadDocumento(xml: string): { serie: string; numero: string; fecha: string } | undefined {
  const m = CABECERA.exec(xml);
  if (!m) return undefined;
  return { serie: unescapeXml(m[1] ?? ''), numero: unescapeXml(m[2] ?? ''), fecha: m[3] ?? '' };
}

/** Reply key of one invoice: serie, number and date kept apart (A1/23 is not A/123). */
const claveFactura = (serie: string, numero: string, fecha: string) => JSON.stringify([serie, numero, fecha]);

/**
 * Araba and Gipuzkoa: one signed document per request (alta, anulación or a Zuzendu correction),
 * answered with a TicketBaiResponse: Estado 00 received (warnings 007–014 make it "accepted with
 * errors"), 01 rejected. On a resend whose earlier send got no committed answer, 005 "already
 * registered" (alta, correction) and 011 "already cancelled" (anulación) mean that earlier send
 * was registered: the acceptance is reconciled. On a first send they are rejections (someone
 * else filed that invoice).
 */
export class TbaiRestAdapter implements AuthorityAdapter {
  readonly maxRecords = 1;
  readonly autoridad: string;

  constructor(
    private readonly provincia: 'araba' | 'gipuzkoa',
    private readonly endpoints: TbaiEndpoints,
  ) {
    this.autoridad = `tbai-${provincia}`;
  }

  lineKey(record: OutgoingRecord): string {
    return `${record.tipo}|${record.numeroFactura}|${record.fechaExpedicion}`;
  }

  build(records: readonly OutgoingRecord[], _context: BuildContext): string {
    const [record] = records;
    if (!record || records.length !== 1) throw new RangeError('one TicketBAI document per request');
    return record.xml;
  }

  async send(entorno: Entorno, request: string, onWritten?: () => void): Promise<SentRequest> {
    const url = `${this.endpoints.base[this.provincia][entorno]}${REST_PATHS[this.provincia][documentKind(request)]}`;
    const res = await postHttp(url, request, {
      headers: { 'content-type': 'application/xml; charset=utf-8' },
      timeoutMs: this.endpoints.timeoutMs,
      tls: this.endpoints.tls,
      onWritten,
    });
    return { status: res.status, body: res.body.toString('utf8'), headers: res.headers };
  }

  interpret(sent: SentRequest, records: readonly OutgoingRecord[]): Interpretation {
    if (sent.status !== 200) throw new TransportError(`HTTP ${sent.status}`);
    let salida: Node | undefined;
    try {
      salida = obj(obj((parser.parse(sent.body, true) as Node).TicketBaiResponse)?.Salida);
    } catch (error) {
      throw new TransportError(`respuesta no es XML: ${(error as Error).message}`);
    }
    const estado = text(salida?.Estado);
    if (!salida || !estado) throw new TransportError('respuesta sin TicketBaiResponse/Salida/Estado');
    const resultados = ((salida.ResultadosValidacion as unknown[] | undefined) ?? []).map((r) => ({
      codigo: text(obj(r)?.Codigo) ?? '',
      descripcion: text(obj(r)?.Descripcion) ?? '',
    }));
    const first = resultados[0];
    const csv = text(salida.CSV);
    const mensaje = resultados.map((r) => `${r.codigo} ${r.descripcion}`).join('; ') || text(salida.Descripcion);
    const record = records[0];
    const verdicts = new Map<string, Verdict>();
    if (record) {
      const extra = tbaiExtra(estado, first?.codigo, mensaje, csv);
      let verdict: Verdict;
      if (estado === '00') {
        verdict = { kind: 'aceptado', conErrores: resultados.length > 0, codigo: first?.codigo, descripcion: first?.descripcion, extra };
      } else if (
        ((first?.codigo === '005' && record.tipo !== 'anulacion') || (first?.codigo === '011' && record.tipo === 'anulacion')) &&
        record.enviadoAntes
      ) {
        // Our earlier, unanswered send of this very document was registered: that acceptance stands.
        verdict = { kind: 'aceptado', conErrores: false, extra: { ...extra, reconciliado: true } };
      } else if (first?.codigo === '006') {
        throw new TransportError(`servicio no disponible (006): ${first.descripcion}`);
      } else {
        verdict = {
          kind: 'rechazado',
          codigo: first?.codigo ?? estado,
          descripcion: first?.descripcion ?? text(salida.Descripcion) ?? '',
          motivosAdicionales: resultados.slice(1),
          extra,
        };
      }
      verdicts.set(record.registroId, verdict);
    }
    return { kind: 'verdicts', verdicts, waitSeconds: 0, csv, estadoEnvio: estado === '00' ? 'Recibido' : 'Rechazado' };
  }
}

/**
 * Bizkaia: LROE model 240 (legal persons) or 140 (natural persons), a JSON header and the
 * gzipped XML of many signed invoices; one request per kind of operation and year.
 */
export class LroeAdapter implements AuthorityAdapter {
  readonly autoridad = 'tbai-bizkaia';
  readonly maxRecords = 1000;

  constructor(
    private readonly endpoints: TbaiEndpoints,
    /** The IAE heading model 140 needs for each issuer (natural persons). */
    private readonly epigrafeOf: (nif: string) => string | undefined,
  ) {}

  /** The reply's key (serie, número, fecha apart): A1/23 and A/123 may travel together. */
  lineKey(record: OutgoingRecord): string {
    const id = identidadDocumento(record.xml);
    const clave = id ? claveFactura(id.serie, id.numero, id.fecha) : `${record.numeroFactura}|${record.fechaExpedicion}`;
    return `${record.tipo === 'anulacion' ? 'A' : 'F'}|${clave}`;
  }

  sameSubmission(first: OutgoingRecord, next: OutgoingRecord): boolean {
    const year = (r: OutgoingRecord) => r.fechaExpedicion.slice(6);
    return (first.tipo === 'anulacion') === (next.tipo === 'anulacion') && year(first) === year(next);
  }

  build(records: readonly OutgoingRecord[], context: BuildContext): string {
    const first = records[0];
    if (!first) throw new RangeError('an LROE request needs records');
    const base = {
      modelo: isPersonaFisica(context.obligado.nif) ? ('140' as const) : ('240' as const),
      ejercicio: Number(first.fechaExpedicion.slice(6)),
      obligado: context.obligado,
    };
    const epigrafe = this.epigrafeOf(context.obligado.nif);
    const peticion =
      first.tipo === 'anulacion'
        ? buildLroeAnulacion({ ...base, anulaciones: records.map((r) => ({ signedXml: r.xml })) })
        : buildLroeAlta({ ...base, facturas: records.map((r) => ({ signedXml: r.xml, epigrafe })) });
    // The exact request: the header and the XML; gzip (deterministic) is applied at send.
    return JSON.stringify({ header: peticion.headerJson, xml: peticion.bodyXml });
  }

  async send(entorno: Entorno, request: string, onWritten?: () => void): Promise<SentRequest> {
    const { header, xml } = JSON.parse(request) as { header: unknown; xml: string };
    const { gzipSync } = await import('node:zlib');
    const res = await postHttp(`${this.endpoints.base.bizkaia[entorno]}${LROE_PATH}`, gzipSync(Buffer.from(xml, 'utf8')), {
      headers: {
        'content-type': 'application/octet-stream',
        'content-encoding': 'gzip',
        'eus-bizkaia-n3-version': '1.0',
        'eus-bizkaia-n3-content-type': 'application/xml',
        'eus-bizkaia-n3-data': JSON.stringify(header),
      },
      timeoutMs: this.endpoints.timeoutMs,
      tls: this.endpoints.tls,
      onWritten,
    });
    let body = '';
    if (res.body.length > 0) {
      try {
        body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.body).toString('utf8') : res.body.toString('utf8');
      } catch (error) {
        throw new TransportError(`respuesta LROE ilegible: ${(error as Error).message}`);
      }
    }
    return { status: res.status, body, headers: res.headers };
  }

  interpret(sent: SentRequest, records: readonly OutgoingRecord[]): Interpretation {
    if (sent.status >= 500 || sent.status === 0) throw new TransportError(`HTTP ${sent.status}`);
    const h = sent.headers ?? {};
    const tipo = h['eus-bizkaia-n3-tipo-respuesta'];
    const codigo = h['eus-bizkaia-n3-codigo-respuesta'];
    const identificativo = h['eus-bizkaia-n3-identificativo'];
    if (!tipo) throw new TransportError(`respuesta LROE sin eus-bizkaia-n3-tipo-respuesta (HTTP ${sent.status})`);
    const mensaje = h['eus-bizkaia-n3-mensaje-respuesta'];
    let doc: Node | undefined;
    if (sent.body.trim() !== '') {
      try {
        doc = parser.parse(sent.body, true) as Node;
      } catch (error) {
        // A cut answer is no verdict, whatever its headers say: the same bytes are sent again.
        throw new TransportError(`respuesta LROE no es XML: ${(error as Error).message}`);
      }
    }
    const root = doc ? obj(Object.values(doc).find((v) => obj(v) && 'Cabecera' in (v as Node))) : undefined;
    const registros = (obj(root?.Registros)?.Registro as unknown[] | undefined) ?? [];
    if (tipo === 'Incorrecto' && registros.length === 0) {
      // The whole request was refused (header, schema): final for this content.
      return { kind: 'refused', codigo: codigo ?? 'LROE', descripcion: mensaje ?? 'Petición LROE rechazada' };
    }
    // Accepted without saying which records: no verdict; the same bytes go again (and a duplicate
    // then is reconciled), rather than the records going back into newer submissions.
    if (registros.length === 0) throw new TransportError(`respuesta LROE ${tipo} sin registros`);
    const byKey = new Map<string, Node>();
    for (const r of registros) {
      const id = obj(obj(obj(r)?.Identificador)?.IDFactura);
      if (!id) continue;
      byKey.set(
        claveFactura(text(id.SerieFactura) ?? '', text(id.NumFactura) ?? '', text(id.FechaExpedicionFactura) ?? ''),
        obj(obj(r)?.SituacionRegistro) ?? {},
      );
    }
    const verdicts = new Map<string, Verdict>();
    for (const record of records) {
      const ident = identidadDocumento(record.xml);
      // A record whose identity cannot be read is left unanswered: it goes back to its queue.
      const situacion = ident && byKey.get(claveFactura(ident.serie, ident.numero, ident.fecha));
      if (!situacion) continue;
      const estado = text(situacion.EstadoRegistro) ?? '';
      const cod = text(situacion.CodigoErrorRegistro);
      const desc = text(situacion.DescripcionErrorRegistroES);
      const extra = tbaiExtra(estado, cod, desc, identificativo);
      if (estado === 'Incorrecto' && cod === LROE_DUPLICADO && record.enviadoAntes) {
        // B4_2000003 "Registro duplicado" (also a cancellation already made) on a resend: our
        // earlier, unanswered send was registered, and that acceptance stands.
        verdicts.set(record.registroId, { kind: 'aceptado', conErrores: false, extra: { ...extra, reconciliado: true } });
      } else if (estado === 'Incorrecto') {
        verdicts.set(record.registroId, { kind: 'rechazado', codigo: cod ?? 'Incorrecto', descripcion: desc ?? '', extra });
      } else {
        verdicts.set(record.registroId, { kind: 'aceptado', conErrores: estado === 'AceptadoConErrores', codigo: cod, descripcion: desc, extra });
      }
    }
    return { kind: 'verdicts', verdicts, waitSeconds: 0, csv: identificativo, estadoEnvio: tipo };
  }
}
