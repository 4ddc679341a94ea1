import type { Entorno } from '../../../src-shared/api/common';
import { buildRegFactuSoapEnvelope, MAX_REGISTROS_POR_ENVIO } from '../verifactu/soap';
import { MalformedReply, parseAeatReply, type RespuestaLinea } from './aeat-reply';
import type { AuthorityAdapter, BuildContext, Interpretation, OutgoingRecord, SentRequest } from './authority';
import { postSoap, TransportError, type TlsClientConfig } from './transport';
import type { Verdict } from './verdicts';

export interface AeatEndpointConfig {
  url: Record<Entorno, string>;
  timeoutMs: number;
  tls?: TlsClientConfig | undefined;
}

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

  send(entorno: Entorno, request: string): Promise<SentRequest> {
    return postSoap(this.config.url[entorno], request, { timeoutMs: this.config.timeoutMs, tls: this.config.tls });
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
      // Client faults refuse the content (final); Server faults are transient.
      if (/client/i.test(reply.faultcode)) return { kind: 'refused', codigo: reply.codigo ?? 'FAULT', descripcion: reply.faultstring };
      throw new TransportError(`SOAP Fault ${reply.faultcode}: ${reply.faultstring}`);
    }
    if (sent.status !== 200) throw new TransportError(`HTTP ${sent.status}`);
    const lines = new Map<string, RespuestaLinea>();
    for (const line of reply.lineas) {
      lines.set(key(line.operacion, line.idEmisorFactura, line.numSerieFactura, line.fechaExpedicionFactura), line);
    }
    const verdicts = new Map<string, Verdict>();
    for (const record of records) {
      const line = lines.get(this.lineKey(record));
      if (line) verdicts.set(record.registroId, verdictOf(line, reply.csv));
    }
    return { kind: 'verdicts', verdicts, waitSeconds: reply.tiempoEsperaEnvio, csv: reply.csv, estadoEnvio: reply.estadoEnvio };
  }
}

/** The verdict a RespuestaLinea gives, duplicates reconciled to the original one. */
export function verdictOf(line: RespuestaLinea, csv: string | undefined): Verdict {
  // A duplicate of what AEAT holds: our earlier send of these bytes went through (a crash or a
  // lost answer); its original verdict stands. `Anulada` means the key is held, cancelled.
  if (line.codigo === '3000' && line.duplicado) {
    const original = line.duplicado;
    return { kind: 'aceptado', conErrores: original.estado === 'AceptadaConErrores', codigo: original.codigo, descripcion: original.descripcion };
  }
  // Cancelling what AEAT already holds as cancelled: our own earlier cancellation went through.
  if (line.codigo === '3001' && line.operacion === 'Anulacion') return { kind: 'aceptado', conErrores: false };
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
