// Chain verification from the stored record XML alone (issue 15). Pure: records go in one at a
// time (a chain can hold millions, so nothing but a small summary per record is kept), problems
// come out. Nothing is taken from the issuing code's inputs: every field is read back from the
// XML with a real parser and every link recomputed.
//   VeriFactu: each huella recomputed (AEAT hash spec, huella.ts) from the record's own fields
//     and the previous huella it carries; each RegistroAnterior must name an existing record of
//     the chain, with that record's issuer, number, date and huella.
//   TicketBAI: each XAdES signature verified; each EncadenamientoFacturaAnterior must name an
//     existing invoice of the chain, with its series, number, date and the first 100 characters
//     of its SignatureValue. Cancellations (AnulaTicketBai) are signed but not chained; Zuzendu
//     corrections carry the original's huella and are neither signed nor chained.
// One predecessor has at most one successor and one chain one first record: a second claim is
// a fork (bifurcacion).
import type { Element as XElement } from '@xmldom/xmldom';
import type { CadenaVerificada, ProblemaCadena } from '../../../src-shared/api/verificacion';
import type { Entorno, SistemaFiscal } from '../../../src-shared/api/common';
import { parsearXml, verifyTicketBai } from '../regimes/ticketbai/record/xades';
import { huellaAlta, huellaAnulacion } from '../regimes/verifactu/record/huella';
import { verificarFirma } from './firma-registro';

/** One stored record as the snapshot reads it. */
export interface RegistroLeido {
  id: string;
  chainKey: string;
  chainSeq: number;
  entorno: Entorno;
  nifEmisor: string;
  sistemaFiscal: SistemaFiscal;
  idMaquina: string | null;
  /** The invoice's series and number, for the report. */
  serie: string;
  numero: string;
  /** registro_documentos.xml, or null when the document is missing. */
  xml: string | null;
}

/** The head the chain table stores: what the next record would link to. */
export interface CabezaCadena {
  length: number;
  lastRegistroId: string;
}

/** What a record links to, as its XML says. */
interface Enlace {
  /** The predecessor's identity: VeriFactu huella, or TicketBAI SignatureValue's first 100 characters. */
  identidad: string;
  /** The rest of the link (issuer/series, number, date), compared with the predecessor's. */
  datos: string;
}

interface Nodo {
  id: string;
  serie: string;
  numero: string;
  seq: number;
  /** The record's own link data, in the shape a successor's link carries it. */
  datos: string;
}

interface Pendiente {
  nodo: Nodo;
  /** null: the record says it is the first of its chain. */
  enlace: Enlace | null;
}

function hijo(e: XElement | null | undefined, local: string): XElement | undefined {
  if (e === null || e === undefined) return undefined;
  for (let n = e.firstChild; n !== null; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as XElement).localName === local) return n as XElement;
  }
  return undefined;
}

function ruta(e: XElement | null | undefined, ...locales: string[]): XElement | undefined {
  let cur: XElement | undefined = e ?? undefined;
  for (const local of locales) cur = hijo(cur, local);
  return cur;
}

function texto(e: XElement | null | undefined, ...locales: string[]): string | undefined {
  return ruta(e, ...locales)?.textContent ?? undefined;
}

function firmaDe(raiz: XElement): string {
  const sv = raiz.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'SignatureValue').item(0);
  return (sv?.textContent ?? '').replace(/\s+/g, '');
}

const unir = (...partes: (string | undefined)[]) => partes.map((p) => (p ?? '').trim()).join('|');

/** Verifies one chain; feed its records in chainSeq order, then call terminar(). */
export class VerificadorCadena {
  private readonly nodos = new Map<string, Nodo>();
  private readonly pendientes: Pendiente[] = [];
  private readonly problemas: ProblemaCadena[] = [];
  private readonly ids = new Set<string>();
  private registros = 0;
  private idMaquina: string | null | undefined;
  private meta: { entorno: Entorno; nif: string; sistemaFiscal: SistemaFiscal } | undefined;

  constructor(readonly clave: string) {}

  private problema(tipo: ProblemaCadena['tipo'], r: Pick<Nodo, 'id' | 'serie' | 'numero'>, esperado?: string, encontrado?: string): void {
    this.problemas.push({
      tipo,
      clave: this.clave,
      idRegistro: r.id,
      serie: r.serie,
      numero: r.numero,
      ...(esperado !== undefined ? { esperado } : {}),
      ...(encontrado !== undefined ? { encontrado } : {}),
    });
  }

  add(r: RegistroLeido): void {
    this.registros++;
    this.ids.add(r.id);
    this.meta ??= { entorno: r.entorno, nif: r.nifEmisor, sistemaFiscal: r.sistemaFiscal };
    this.idMaquina = this.idMaquina === undefined ? r.idMaquina : this.idMaquina === r.idMaquina ? this.idMaquina : null;
    if (r.xml === null) {
      this.problema('rotura', r);
      return;
    }
    const { doc } = parsearXml(r.xml);
    const raiz = doc?.documentElement ?? null;
    if (raiz === null) {
      this.problema('rotura', r);
      return;
    }
    switch (raiz.localName) {
      case 'RegistroAlta':
      case 'RegistroAnulacion':
        this.verifactu(r, raiz);
        return;
      case 'TicketBai':
        this.ticketbai(r, raiz, true);
        return;
      case 'AnulaTicketBai':
        this.ticketbai(r, raiz, false);
        return;
      default:
        // Zuzendu corrections: not signed, not chained (they carry the original's huella).
        return;
    }
  }

  private verifactu(r: RegistroLeido, raiz: XElement): void {
    const alta = raiz.localName === 'RegistroAlta';
    const id = ruta(raiz, 'IDFactura');
    const emisor = texto(id, alta ? 'IDEmisorFactura' : 'IDEmisorFacturaAnulada') ?? '';
    const numSerie = texto(id, alta ? 'NumSerieFactura' : 'NumSerieFacturaAnulada') ?? '';
    const fecha = texto(id, alta ? 'FechaExpedicionFactura' : 'FechaExpedicionFacturaAnulada') ?? '';
    const anterior = ruta(raiz, 'Encadenamiento', 'RegistroAnterior');
    const huellaAnterior = anterior === undefined ? null : (texto(anterior, 'Huella') ?? '');
    const fechaHora = texto(raiz, 'FechaHoraHusoGenRegistro') ?? '';
    const almacenada = (texto(raiz, 'Huella') ?? '').trim();
    const calculada = alta
      ? huellaAlta({
          IDEmisorFactura: emisor,
          NumSerieFactura: numSerie,
          FechaExpedicionFactura: fecha,
          TipoFactura: texto(raiz, 'TipoFactura') ?? '',
          CuotaTotal: texto(raiz, 'CuotaTotal') ?? '',
          ImporteTotal: texto(raiz, 'ImporteTotal') ?? '',
          Huella: huellaAnterior,
          FechaHoraHusoGenRegistro: fechaHora,
        })
      : huellaAnulacion({
          IDEmisorFacturaAnulada: emisor,
          NumSerieFacturaAnulada: numSerie,
          FechaExpedicionFacturaAnulada: fecha,
          Huella: huellaAnterior,
          FechaHoraHusoGenRegistro: fechaHora,
        });
    if (calculada !== almacenada) this.problema('rotura', r, calculada, almacenada);
    // «NO VERI*FACTU» records carry their XAdES signature (issue 32): it must verify too.
    if (hijo(raiz, 'Signature') !== undefined && !verificarFirma(r.xml ?? '').valid) this.problema('firma_invalida', r, undefined, firmaDe(raiz).slice(0, 100));
    const nodo: Nodo = { id: r.id, serie: r.serie, numero: r.numero, seq: r.chainSeq, datos: unir(emisor, numSerie, fecha) };
    this.enlazar(almacenada, nodo, anterior === undefined
      ? null
      : {
          identidad: (huellaAnterior ?? '').trim(),
          datos: unir(texto(anterior, 'IDEmisorFactura'), texto(anterior, 'NumSerieFactura'), texto(anterior, 'FechaExpedicionFactura')),
        });
  }

  private ticketbai(r: RegistroLeido, raiz: XElement, encadenada: boolean): void {
    const firma = firmaDe(raiz);
    if (!verifyTicketBai(r.xml ?? '').valid) this.problema('firma_invalida', r, undefined, firma.slice(0, 100));
    if (!encadenada) return;
    const cabecera = ruta(raiz, 'Factura', 'CabeceraFactura');
    const nodo: Nodo = {
      id: r.id,
      serie: r.serie,
      numero: r.numero,
      seq: r.chainSeq,
      datos: unir(texto(cabecera, 'SerieFactura'), texto(cabecera, 'NumFactura'), texto(cabecera, 'FechaExpedicionFactura')),
    };
    const anterior = ruta(raiz, 'HuellaTBAI', 'EncadenamientoFacturaAnterior');
    this.enlazar(firma.slice(0, 100), nodo, anterior === undefined
      ? null
      : {
          identidad: (texto(anterior, 'SignatureValueFirmaFacturaAnterior') ?? '').trim(),
          datos: unir(texto(anterior, 'SerieFacturaAnterior'), texto(anterior, 'NumFacturaAnterior'), texto(anterior, 'FechaExpedicionFacturaAnterior')),
        });
  }

  private enlazar(identidad: string, nodo: Nodo, enlace: Enlace | null): void {
    // The first record with an identity keeps it; a duplicate cannot be a distinct predecessor.
    if (!this.nodos.has(identidad)) this.nodos.set(identidad, nodo);
    this.pendientes.push({ nodo, enlace });
  }

  /** Resolves every link (a predecessor may come later if sequences were tampered with). */
  terminar(cabeza?: CabezaCadena): { cadena: CadenaVerificada | undefined; problemas: ProblemaCadena[] } {
    let primero: Nodo | undefined;
    const sucesores = new Map<string, Nodo>();
    for (const { nodo, enlace } of this.pendientes) {
      if (enlace === null) {
        if (primero !== undefined) this.problema('bifurcacion', nodo, primero.id, 'primer registro');
        else primero = nodo;
        continue;
      }
      const previo = this.nodos.get(enlace.identidad);
      if (previo === undefined || previo === nodo) {
        this.problema('enlace_colgante', nodo, undefined, enlace.identidad);
        continue;
      }
      if (previo.datos !== enlace.datos) this.problema('rotura', nodo, previo.datos, enlace.datos);
      const otro = sucesores.get(enlace.identidad);
      if (otro !== undefined) this.problema('bifurcacion', nodo, otro.id, previo.id);
      else sucesores.set(enlace.identidad, nodo);
    }
    if (cabeza !== undefined && !this.ids.has(cabeza.lastRegistroId)) {
      // The next record would link to a record that is no longer there.
      this.problemas.push({ tipo: 'enlace_colgante', clave: this.clave, idRegistro: cabeza.lastRegistroId, serie: '', numero: '' });
    }
    const cadena: CadenaVerificada | undefined =
      this.meta === undefined
        ? undefined
        : {
            clave: this.clave,
            entorno: this.meta.entorno,
            nif: this.meta.nif,
            sistemaFiscal: this.meta.sistemaFiscal,
            idMaquina: this.idMaquina ?? null,
            registros: this.registros,
            correcta: this.problemas.length === 0,
          };
    return { cadena, problemas: this.problemas };
  }
}

/** A chain the chain table knows but whose records are all gone: its fields from the key. */
export function cadenaSinRegistros(clave: string, cabeza: CabezaCadena): { cadena: CadenaVerificada | undefined; problemas: ProblemaCadena[] } {
  const [entorno, sistema, nif] = clave.split('|');
  const cadena: CadenaVerificada | undefined =
    (entorno === 'test' || entorno === 'live') && nif !== undefined
      ? {
          clave,
          entorno,
          nif,
          sistemaFiscal: sistema?.startsWith('ticketbai') === true ? 'ticketbai' : 'verifactu',
          idMaquina: null,
          registros: 0,
          correcta: false,
        }
      : undefined;
  return { cadena, problemas: [{ tipo: 'enlace_colgante', clave, idRegistro: cabeza.lastRegistroId, serie: '', numero: '' }] };
}
