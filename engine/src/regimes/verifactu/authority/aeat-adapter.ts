import type { Entorno } from '../../../../../src-shared/api/common';
import { buildRegFactuSoapEnvelope, MAX_REGISTROS_POR_ENVIO } from './soap';
import { MalformedReply, parseAeatReply, type RespuestaLinea } from './aeat-reply';
import { SubmissionBlocked, type AuthorityAdapter, type BuildContext, type Interpretation, type OutgoingRecord, type SentRequest } from '../../../core/authority';
import { postSoap, TransportError, type TlsClientConfig } from '../../../core/transport';
import type { Verdict } from '../../../core/authority';

export interface AeatEndpointConfig {
  url: Record<Entorno, string>;
  timeoutMs: number;
  tls?: TlsClientConfig | undefined;
}

/**
 * Whole-request SOAP Client faults (Codigo[4xxx]) and what they mean for the records.
 * The 4xxx list itself is AEAT's errores.properties (Validaciones_Errores_Veri-Factu §4 points to
 * it; it is not in the reference folder), so only a defect in our own bytes is final:
 *   4102 El XML no cumple el esquema → every record of the request rejected (final): resending
 *        the same bytes gets the same answer.
 * Everything else blocks the queue with back-off and rejects nothing, because the invoices are
 * fine and the cause is fixed outside them:
 *   4104 / 4105 ObligadoEmision / Representante not identified in the census,
 *   4112 the certificate's holder may not file for the obligado (and other certificate codes),
 *   4135 and any other or unknown code, and faults without a code.
 */
const FINAL_FAULT_CODES: ReadonlySet<string> = new Set(['4102']);

function key(operacion: 'Alta' | 'Anulacion', nif: string, numSerie: string, fecha: string): string {
  return `${operacion}|${nif}|${numSerie}|${fecha}`;
}

/** AEAT VeriFactu: SOAP 1.1 RegFactuSistemaFacturacion, ≤ 1000 records, TiempoEsperaEnvio. */
export class AeatAdapter implements AuthorityAdapter {
  readonly autoridad = 'aeat';
  readonly maxRecords = MAX_REGISTROS_POR_ENVIO;

  constructor(private readonly config: AeatEndpointConfig) {}

  lineKey(record: OutgoingRecord): string {
    return key(record.tipo === 'anulacion' ? 'Anulacion' : 'Alta', record.nifEmisor, record.numeroFactura, record.fechaExpedicion);
  }

  build(records: readonly OutgoingRecord[], context: BuildContext): string {
    return buildRegFactuSoapEnvelope({
      obligado: { nombreRazon: context.obligado.nombre, nif: context.obligado.nif },
      incidencia: context.incidencia,
      registros: records.map((r) => r.xml),
    });
  }

  send(entorno: Entorno, request: string, onWritten?: () => void): Promise<SentRequest> {
    return postSoap(this.config.url[entorno], request, { timeoutMs: this.config.timeoutMs, tls: this.config.tls, onWritten });
  }

  interpret(sent: SentRequest, records: readonly OutgoingRecord[]): Interpretation {
    let reply;
    try {
      reply = parseAeatReply(sent.body);
    } catch (error) {
      if (error instanceof MalformedReply) throw new TransportError(`HTTP ${sent.status}: ${error.message}`);
      throw error;
    }
    if (reply.kind === 'fault') {
      // Server faults are transient; Client faults are final only for a schema error (table above).
      if (!/client/i.test(reply.faultcode)) throw new TransportError(`SOAP Fault ${reply.faultcode}: ${reply.faultstring}`);
      if (reply.codigo && FINAL_FAULT_CODES.has(reply.codigo)) {
        return { kind: 'refused', codigo: reply.codigo, descripcion: reply.faultstring };
      }
      throw new SubmissionBlocked(reply.faultstring || `SOAP Fault ${reply.faultcode}`, reply.codigo);
    }
    if (sent.status !== 200) throw new TransportError(`HTTP ${sent.status}`);
    const lines = new Map<string, RespuestaLinea>();
    for (const line of reply.lineas) {
      lines.set(key(line.operacion, line.idEmisorFactura, line.numSerieFactura, line.fechaExpedicionFactura), line);
    }
    const verdicts = new Map<string, Verdict>();
    for (const record of records) {
      const line = lines.get(this.lineKey(record));
      if (line) verdicts.set(record.registroId, verdictOf(line, reply.csv, record.enviadoAntes));
    }
    return { kind: 'verdicts', verdicts, waitSeconds: reply.tiempoEsperaEnvio, csv: reply.csv, estadoEnvio: reply.estadoEnvio };
  }
}

/**
 * The verdict a RespuestaLinea gives. `enviadoAntes`: this engine may have sent the record before
 * without a committed answer; only then is a duplicate our own earlier send, reconciled to the
 * original verdict. On a first send it means someone else filed that invoice: a final rejection
 * with AEAT's code and text.
 */
export function verdictOf(line: RespuestaLinea, csv: string | undefined, enviadoAntes: boolean): Verdict {
  // `Anulada` means the key is held, cancelled. AEAT's duplicate answer carries no CSV; the id of
  // the request that registered it goes into the description so support staff can find it.
  if (line.codigo === '3000' && line.duplicado && enviadoAntes) {
    const original = line.duplicado;
    const where = original.idPeticion ? `Registrado en la petición ${original.idPeticion} (IdPeticionRegistroDuplicado)` : undefined;
    const descripcion = [where, original.descripcion].filter(Boolean).join('. ') || undefined;
    return { kind: 'aceptado', conErrores: original.estado === 'AceptadaConErrores', codigo: original.codigo, descripcion };
  }
  // Cancelling what AEAT already holds as cancelled: our own earlier cancellation went through.
  if (line.codigo === '3001' && line.operacion === 'Anulacion' && enviadoAntes) return { kind: 'aceptado', conErrores: false };
  if (line.estado === 'Incorrecto') {
    return { kind: 'rechazado', codigo: line.codigo ?? '', descripcion: line.descripcion ?? '' };
  }
  return {
    kind: 'aceptado',
    conErrores: line.estado === 'AceptadoConErrores',
    codigo: line.codigo,
    descripcion: line.descripcion,
    csv,
  };
}
