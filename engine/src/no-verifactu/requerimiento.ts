// Sending the kept records on the AEAT's requirement (issue 32; AEAT "Descripción del servicio
// web", Anexo III): the records of a period, as stored (signed), in RegFactuSistemaFacturacion
// submissions of up to 1,000 records whose Cabecera carries RemisionRequerimiento/RefRequerimiento,
// FinRequerimiento = S on the last; between submissions the TiempoEsperaEnvio the previous answer
// gave (flow control as for VERI*FACTU). The AEAT registers each as a new record and rejects only
// identification errors, so nothing is corrected or resent here. The sending is logged as an
// event (90, «otros»: the AEAT's event list has no type of its own for it).
import type { Issuer } from '../clients/store';
import { EngineError, validation } from '../core/errors';
import { parseAeatReply } from '../regimes/verifactu/authority/aeat-reply';
import { postSoap, type TlsClientConfig } from '../core/transport';
import { buildRegFactuSoapEnvelope, MAX_REGISTROS_POR_ENVIO } from '../regimes/verifactu/authority/soap';
import { TIPOS_EVENTO, type RegistroEventos } from './eventos';
import { comprobarPeriodo } from './periodo';
import type { NoVerifactuStore } from './store';

export interface EnvioRequerimiento {
  registros: number;
  estadoEnvio: string;
  csv?: string | undefined;
  correctos: number;
  aceptadosConErrores: number;
  incorrectos: number;
  /** A SOAP Fault instead of an answer: its code and text. */
  fault?: string | undefined;
}

export interface ResultadoRequerimiento {
  nif: string;
  entorno: 'test' | 'live';
  refRequerimiento: string;
  registros: number;
  envios: EnvioRequerimiento[];
  evento: { id: string; tipoEvento: string; huella: string };
}

export class RequerimientosNoVerifactu {
  constructor(
    private readonly deps: {
      store: NoVerifactuStore;
      eventos: RegistroEventos;
      aeat: { url: { test: string; live: string }; timeoutMs: number; tls?: TlsClientConfig | undefined };
      /** Waits between submissions (tests pass a short one). */
      esperar?: ((ms: number) => Promise<void>) | undefined;
    },
  ) {}

  async remitir(issuer: Issuer, peticion: { ref: string; desde: Date; hasta: Date }): Promise<ResultadoRequerimiento> {
    const { store, eventos, aeat } = this.deps;
    // The AEAT refuses the whole submission otherwise (4133: "no es alfanumérico"); the XSD says 1–18.
    if (!/^[0-9A-Za-z]{1,18}$/.test(peticion.ref)) {
      throw validation('ref', 'RefRequerimiento: de 1 a 18 letras y cifras (AEAT 4133)', ['ref: 1 to 18 letters and digits (AEAT 4133)']);
    }
    comprobarPeriodo(peticion);
    const rows = store.conservadosDelPeriodo(issuer.entorno, issuer.nif, peticion.desde.toISOString(), peticion.hasta.toISOString());
    if (rows.length === 0) throw new EngineError(404, 'NOT_FOUND', 'No hay registros NO VERI*FACTU conservados en ese periodo', { campo: 'desde' });
    const esperar = this.deps.esperar ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const envios: EnvioRequerimiento[] = [];
    for (let i = 0; i < rows.length; i += MAX_REGISTROS_POR_ENVIO) {
      const lote = rows.slice(i, i + MAX_REGISTROS_POR_ENVIO);
      const fin = i + MAX_REGISTROS_POR_ENVIO >= rows.length;
      const envelope = buildRegFactuSoapEnvelope({
        obligado: { nombreRazon: issuer.nombre, nif: issuer.nif },
        requerimiento: { ref: peticion.ref, fin },
        registros: lote.map((r) => r.xml),
      });
      const res = await postSoap(requerimientoUrl(aeat.url[issuer.entorno]), envelope, { timeoutMs: aeat.timeoutMs, tls: aeat.tls });
      const reply = parseAeatReply(res.body);
      if (reply.kind === 'fault') {
        envios.push({ registros: lote.length, estadoEnvio: 'Fault', correctos: 0, aceptadosConErrores: 0, incorrectos: lote.length, fault: `${reply.faultcode}: ${reply.faultstring}` });
        break;
      }
      envios.push({
        registros: lote.length,
        estadoEnvio: reply.estadoEnvio,
        ...(reply.csv !== undefined ? { csv: reply.csv } : {}),
        correctos: reply.lineas.filter((l) => l.estado === 'Correcto').length,
        aceptadosConErrores: reply.lineas.filter((l) => l.estado === 'AceptadoConErrores').length,
        incorrectos: reply.lineas.filter((l) => l.estado === 'Incorrecto').length,
      });
      if (!fin) await esperar(reply.tiempoEsperaEnvio * 1000);
    }
    const enviados = envios.reduce((n, e) => n + e.registros, 0);
    const evento = eventos.anotar(issuer.entorno, { nif: issuer.nif, nombre: issuer.nombre }, {
      tipoEvento: TIPOS_EVENTO.otros,
      otrosDatos: `Remision por requerimiento ${peticion.ref}: ${enviados} registros en ${envios.length} envios`,
    });
    return {
      nif: issuer.nif,
      entorno: issuer.entorno,
      refRequerimiento: peticion.ref,
      registros: rows.length,
      envios,
      evento: { id: evento.id, tipoEvento: evento.tipoEvento, huella: evento.huella },
    };
  }
}

/**
 * The AEAT takes requirement submissions at their own endpoint, beside VERI*FACTU's on the same host
 * (SistemaFacturacion.wsdl: …/SistemaFacturacion/RequerimientoSOAP next to …/VerifactuSOAP); sent to
 * the VERI*FACTU one, a RemisionRequerimiento header is refused whole (4126). A configured URL that
 * is not a VerifactuSOAP address is used as it is.
 */
export function requerimientoUrl(verifactuUrl: string): string {
  return verifactuUrl.replace(/\/VerifactuSOAP(?=$|[?#])/, '/RequerimientoSOAP');
}
