import type {
  FacturaVerifactu,
  VerifactuAnularBody,
  VerifactuEmisionResponse,
  VerifactuSubsanarBody,
} from '../../../../src-shared/api/verifactu';
import type { Entorno } from '../../../../src-shared/api/common';
import type { IssuerStore } from '../../clients/store';
import { issuerChainKey, verifactuDeviceChainKey } from '../../devices/chain-keys';
import type { DeviceRouting, Writer } from '../../devices/routing';
import { nuevoRegistro, type InvoiceStore, type InvoiceRow } from '../../invoices/store';
import { EngineError, invoiceIdentityConflict, invoiceNotFound, invoiceStatusInvalid, paymentRequired, validation } from '../../core/errors';
import type { Caller } from '../../core/caller';
import { ChainPipeline } from '../../issuing/chain-pipeline';
import type { GroupCommit } from '../../issuing/group-commit';
import { admitIssuer } from '../../issuing/issuer-gate';
import type { Clock } from '../../platform/clock';
import type { IdGenerator } from '../../platform/ids';
import { fechaLocalDdMmAaaa } from '../../issuing/fecha-hora';
import { CAMPOS_CANONICOS_VERIFACTU, correctionFingerprint } from '../../issuing/fingerprint';
import { importeCanonico } from '../../issuing/importes';
import { urlValidacion } from './record/qr';
import {
  buildRegistroAlta,
  buildRegistroAnulacion,
  numSerieFactura,
  type RegistroAnterior,
  type SistemaInformatico,
} from './record/registro';
import { validarAlta } from './reglas';

export type EmisionAnswer = VerifactuEmisionResponse;

export interface AnulacionAnswer {
  code: 'SUCCESS';
  data: {
    idFactura: string;
    idRegistro: string;
    numeroFactura: string;
    serie?: string;
    numero: string;
    estado: 'pendiente' | 'procesando' | 'aceptada' | 'rechazada';
    creadoEn: string;
    huella: string;
    yaAnulada?: boolean;
  };
}

type StoredEmision = Omit<EmisionAnswer, 'qrBase64' | 'yaExistente'>;

/** The chain a record goes to and the SIF (SistemaInformatico) that writes it. */
interface ChainRoute {
  chainKey: string;
  sistema: SistemaInformatico;
  /** The device whose chain it is (kept on the record so corrections and cancellations follow it). */
  dispositivo: string | null;
}

const invoiceExists = () =>
  new EngineError(409, 'INVOICE_EXISTS', 'La factura consta registrada: no puede anularse sin registro previo');

const RECHAZO_PREVIO_MOTIVO = {
  N: 'sin rechazo previo',
  S: 'la subsanación anterior fue rechazada',
  X: 'la AEAT no tiene registro de esta factura',
} as const;

/**
 * One chain per (environment, issuer) in VeriFactu — the issuer's single chain, which is also the
 * centralized writer's (__SHARD0__) in `activa` — and one per device in `activa`.
 */
export function verifactuChainKey(entorno: Entorno, nif: string, idMaquina?: string | null): string {
  return idMaquina ? verifactuDeviceChainKey(entorno, nif, idMaquina) : issuerChainKey('verifactu', entorno, nif);
}
export function verifactuQueueKey(entorno: string, nif: string): string {
  return `${entorno}|aeat|${nif}`;
}

/**
 * What issuing asks of the «NO VERI*FACTU» mode inside its transaction (no-verifactu/issuing.ts
 * FirmaNoVerifactu implements it; the composition root passes it in).
 */
export interface NoVerifactuHooks {
  /** The mode of the issuer's installation ('no_verifactu' or VERI*FACTU's). */
  modo(entorno: Entorno, nif: string): string;
  /** The SIF block of a record made in that mode. */
  sistema(base: SistemaInformatico): SistemaInformatico;
  /** The record XML with its signature. */
  firmar(entorno: Entorno, xml: string): string;
  /** Records signed ahead of their transaction, off the issuing thread (SigningTime: `generadoEn`). */
  firmarAntes(entorno: Entorno, xmls: string[], generadoEn: Date): Promise<string[]>;
}

/** A new invoice's «NO VERI*FACTU» record to build and sign ahead of its transaction. */
interface AltaSifAFirmar {
  entorno: Entorno;
  factura: FacturaVerifactu;
  /** The SIF block of the chain it is expected to join. */
  sistema: SistemaInformatico;
}

/** That record built against the expected chain head and signed. */
interface AltaSifFirmada {
  /** The record as built, unsigned: the transaction uses `firmado` only if it builds exactly this. */
  xml: string;
  firmado: string;
  generadoEn: Date;
}

/**
 * «NO VERI*FACTU» groups of one chain whose signatures may be out at once: while the worker signs
 * one, the next is already queued behind it, so it never waits for a round trip to the issuing
 * thread between two groups; more would only split the requests into smaller groups.
 */
const GROUPS_SIGNING = 2;

/** What the next record of a chain chains to. */
function linkOf(factura: FacturaVerifactu, rec: { numSerieFactura: string; huella: string }): RegistroAnterior {
  return {
    idEmisorFactura: factura.emisor.nif,
    numSerieFactura: rec.numSerieFactura,
    fechaExpedicionFactura: factura.cabecera.fechaExpedicion,
    huella: rec.huella,
  };
}

/**
 * VeriFactu issuing: validate, then in one transaction (shared with concurrent requests by group
 * commit) check identity, chain to the head, build record + XML + huella, and write invoice,
 * record, chain head and submission job together.
 */
export class VerifactuIssuing {
  private readonly commit: GroupCommit;
  /**
   * «NO VERI*FACTU» altas built against the expected chain head and signed on the worker pool
   * ahead of their transaction, chain by chain (issuing/chain-pipeline.ts). The signature is the
   * mode's whole extra cost (RSA-2048, ≈ 0.37 ms): made inside the group commit it capped a chain
   * near 2,700 records/s. Records of one chain do not chain signatures (the huella chains them),
   * so a group is signed in parallel over the workers, and the chain's next group is built as
   * soon as this one is built, its signatures going out while this group's are still being made.
   */
  private readonly pipeline = new ChainPipeline<RegistroAnterior, AltaSifAFirmar, AltaSifFirmada>({
    build: (tail, altas) => {
      const hooks = this.deps.noVerifactu;
      if (hooks === undefined) throw new Error('«NO VERI*FACTU» signing ahead without the mode');
      // Taken after the head was read (or after the group before it was built): the chain's times
      // never go backwards when the transaction finds the head it was signed against.
      const generadoEn = this.deps.clock.now();
      let anterior = tail.link;
      const recs = altas.map((alta) => {
        const rec = buildRegistroAlta({ factura: alta.factura, anterior, generadoEn, sistema: alta.sistema });
        anterior = linkOf(alta.factura, rec);
        return rec;
      });
      const signed = hooks
        .firmarAntes(altas[0]!.entorno, recs.map((rec) => rec.xml), generadoEn)
        .then((firmados) => recs.map((rec, i) => ({ xml: rec.xml, firmado: firmados[i]!, generadoEn })));
      return { next: recs.map((rec, i) => ({ length: tail.length + i + 1, link: linkOf(altas[i]!.factura, rec) })), signed };
    },
    groupsSigning: GROUPS_SIGNING,
  });

  constructor(
    private readonly deps: {
      invoices: InvoiceStore;
      issuers: IssuerStore;
      clock: Clock;
      ids: IdGenerator;
      sistema: SistemaInformatico;
      groupCommit: GroupCommit;
      /** The invoice QR as the PNG's base64, off the main thread (pure-work/). */
      pureWork: { qrPngBase64(url: string): Promise<string> };
      routing: DeviceRouting;
      /** The «NO VERI*FACTU» mode (issue 32): absent, every installation is VERI*FACTU. */
      noVerifactu?: NoVerifactuHooks | undefined;
    },
  ) {
    this.commit = deps.groupCommit;
  }

  /** Each device's SistemaInformatico differs only in NumeroInstalacion; one object per device keeps the XML block cached. */
  private readonly sistemas = new Map<string, SistemaInformatico>();

  private sistemaOf(numeroInstalacion: string): SistemaInformatico {
    let s = this.sistemas.get(numeroInstalacion);
    if (!s) {
      s = { ...this.deps.sistema, numeroInstalacion };
      this.sistemas.set(numeroInstalacion, s);
    }
    return s;
  }

  /** The chain of a writer: a device's own (its installation number assigned with its first record), else the issuer's one. */
  private routeOf(caller: Caller, nif: string, writer: Writer): ChainRoute {
    return this.routeToDevice(caller, nif, writer.kind === 'dispositivo' ? writer.idMaquina : null);
  }

  private routeToDevice(caller: Caller, nif: string, dispositivo: string | null): ChainRoute {
    if (dispositivo === null) return { chainKey: verifactuChainKey(caller.entorno, nif), sistema: this.deps.sistema, dispositivo: null };
    const numero = this.deps.routing.numeroInstalacion({ accountId: caller.account.id, entorno: caller.entorno, nif }, dispositivo);
    return { chainKey: verifactuChainKey(caller.entorno, nif, dispositivo), sistema: this.sistemaOf(numero), dispositivo };
  }

  /**
   * Corrections and cancellations stay on the chain of the invoice they follow: the SIF that
   * generated its record generates theirs, so one invoice never spans two installations.
   */
  private routeOfInvoice(caller: Caller, invoice: InvoiceRow): ChainRoute {
    const last = this.deps.invoices.registrosOf(invoice.id)[0];
    const dispositivo = last ? ((JSON.parse(last.extra) as { dispositivo?: string }).dispositivo ?? null) : null;
    return this.routeToDevice(caller, invoice.nifEmisor, dispositivo);
  }

  private target(caller: Caller, nif: string) {
    return { accountId: caller.account.id, entorno: caller.entorno, nif };
  }

  private validate(factura: FacturaVerifactu, subsanacion?: { rechazoPrevio?: 'N' | 'S' | 'X' | undefined }) {
    const result = validarAlta(factura, {
      hoy: fechaLocalDdMmAaaa(this.deps.clock.now()),
      ...(subsanacion ? { subsanacion: true, rechazoPrevio: subsanacion.rechazoPrevio } : {}),
    });
    const first = result.errors[0];
    if (first) {
      throw validation(first.campo, first.message, result.errors.map((e) => `${e.campo}: ${e.message}`));
    }
    return result.avisos;
  }

  async crear(caller: Caller, factura: FacturaVerifactu): Promise<EmisionAnswer> {
    const avisos = this.validate(factura);
    admitIssuer(this.deps.issuers, caller, factura.emisor.nif, ['verifactu'], { newRegistration: false });
    const qr = this.qrEarly(caller, factura);
    const commitAlta = (antes: AltaSifFirmada | null) =>
      this.commit.run(() => {
        const existing = this.findInvoice(caller, factura.emisor.nif, factura.cabecera.serie, factura.cabecera.numero, factura.cabecera.fechaExpedicion);
        if (existing) return { answer: this.replayOf(existing, factura), replay: true, stored: false };
        // 402 is for a new registration: a replay of an invoice already issued still gets its answer.
        if (caller.account.facturacionActiva !== 1) throw paymentRequired();
        const writer = this.deps.routing.routeNewInvoice(this.target(caller, factura.emisor.nif), factura.cabecera.serie ?? '', factura.idMaquina);
        const issued = this.issueAlta(caller, factura, avisos, null, this.routeOf(caller, factura.emisor.nif, writer), qr, antes);
        return { answer: issued.answer, replay: false, stored: issued.firmadoAntes };
      });
    const antes = this.altaSifAFirmar(caller, factura);
    const outcome =
      antes === undefined
        ? await commitAlta(null)
        : await this.pipeline.run(
            antes.chainKey,
            antes.alta,
            () => {
              const head = this.deps.invoices.chainHead<RegistroAnterior>(antes.chainKey);
              return { length: head?.length ?? 0, link: head?.link ?? null };
            },
            async (firmada) => {
              const committed = await commitAlta(firmada);
              return { value: committed, stored: committed.stored };
            },
          );
    return this.withQr(outcome.answer, outcome.replay, qr);
  }

  /**
   * Outside the transaction, a first look at whether a new invoice's record is «NO VERI*FACTU»
   * and on which chain, so it can be signed ahead; undefined for VERI*FACTU, a replay, or what the
   * transaction will refuse or must decide first (a device without its installation number yet).
   */
  private altaSifAFirmar(caller: Caller, factura: FacturaVerifactu): { chainKey: string; alta: AltaSifAFirmar } | undefined {
    const nif = factura.emisor.nif;
    const hooks = this.noVerifactu(caller.entorno, nif);
    if (hooks === undefined || caller.account.facturacionActiva !== 1) return undefined;
    if (this.findInvoice(caller, nif, factura.cabecera.serie, factura.cabecera.numero, factura.cabecera.fechaExpedicion)) return undefined;
    let route: ChainRoute;
    try {
      const writer = this.deps.routing.previewNewInvoice(this.target(caller, nif), factura.idMaquina);
      if (writer.kind === 'dispositivo') {
        const numero = this.deps.routing.numeroInstalacionAsignado(this.target(caller, nif), writer.idMaquina);
        if (numero === null) return undefined;
        route = { chainKey: verifactuChainKey(caller.entorno, nif, writer.idMaquina), sistema: this.sistemaOf(numero), dispositivo: writer.idMaquina };
      } else route = this.routeToDevice(caller, nif, null);
    } catch {
      return undefined;
    }
    return { chainKey: route.chainKey, alta: { entorno: caller.entorno, factura, sistema: hooks.sistema(route.sistema) } };
  }

  async subsanar(caller: Caller, body: VerifactuSubsanarBody): Promise<EmisionAnswer> {
    const { subsanacion: _flag, rechazoPrevio, ...factura } = body;
    const avisos = this.validate(factura, { rechazoPrevio });
    admitIssuer(this.deps.issuers, caller, factura.emisor.nif, ['verifactu'], { newRegistration: false });
    // `subsanacion` (true or "S") is the same flag either way: left out of the fingerprint.
    const { print, matches } = correctionFingerprint({ ...factura, rechazoPrevio }, CAMPOS_CANONICOS_VERIFACTU);
    const qr = this.qrEarly(caller, factura);
    const outcome = await this.commit.run(() => {
      const existing = this.findInvoice(caller, factura.emisor.nif, factura.cabecera.serie, factura.cabecera.numero, factura.cabecera.fechaExpedicion);
      if (!existing || existing.sistemaFiscal !== 'verifactu' || existing.tipoFactura === null) throw invoiceNotFound();
      if (existing.estadoFactura === 'anulada') throw invoiceStatusInvalid('La factura está anulada: no admite subsanación');
      const last = this.deps.invoices.latestRegistro(existing.id, ['alta', 'subsanacion']);
      const stored = this.deps.invoices.invoiceDocs(existing.id).respuesta;
      if (last?.tipo === 'subsanacion' && matches(JSON.parse(last.extra).fingerprint) && stored) {
        return { answer: JSON.parse(stored) as StoredEmision, replay: true };
      }
      this.deps.routing.checkFollowUp(this.target(caller, factura.emisor.nif), factura.idMaquina);
      const previo = this.rechazoPrevioFor(existing);
      const ajustes =
        rechazoPrevio !== undefined && rechazoPrevio !== previo
          ? [`rechazoPrevio: se envía ${previo} (${RECHAZO_PREVIO_MOTIVO[previo]}), no ${rechazoPrevio}`]
          : [];
      return {
        answer: this.issueAlta(
          caller,
          factura,
          [...avisos, ...ajustes],
          { existing, rechazoPrevio: previo, fingerprint: print },
          this.routeOfInvoice(caller, existing),
          qr,
          null,
        ).answer,
        replay: false,
      };
    });
    return this.withQr(outcome.answer, outcome.replay, qr);
  }

  async anular(caller: Caller, body: VerifactuAnularBody): Promise<AnulacionAnswer> {
    const fa = body.facturaAnulada;
    admitIssuer(this.deps.issuers, caller, fa.nifEmisor, ['verifactu'], { newRegistration: false });
    return this.commit.run(() => {
      const now = this.deps.clock.now();
      const nowIso = now.toISOString();
      const serie = fa.serie ?? '';
      const numSerie = numSerieFactura(fa.serie, fa.numero);
      let invoice = this.findInvoice(caller, fa.nifEmisor, fa.serie, fa.numero, fa.fechaExpedicion);
      if (body.sinRegistroPrevio === true && invoice && invoice.tipoFactura !== null) throw invoiceExists();
      if (body.sinRegistroPrevio !== true && (!invoice || invoice.tipoFactura === null)) throw invoiceNotFound();
      if (invoice) {
        const previous = this.deps.invoices.latestRegistro(invoice.id, ['anulacion']);
        if (previous && previous.estado !== 'rechazada') {
          const stored = JSON.parse(previous.extra).respuesta as AnulacionAnswer;
          return { ...stored, data: { ...stored.data, estado: previous.estado, yaAnulada: true } };
        }
      }
      // A cancellation claims no series; it goes to the chain of the invoice it cancels, or (never
      // registered here) to the writer the request names.
      const writer = this.deps.routing.checkFollowUp(this.target(caller, fa.nifEmisor), body.idMaquina);
      const route = invoice ? this.routeOfInvoice(caller, invoice) : this.routeOf(caller, fa.nifEmisor, writer);
      if (invoice) {
        const referrers = this.deps.invoices.liveReferrers(caller.entorno, fa.nifEmisor, numSerie, fa.fechaExpedicion);
        if (referrers.length > 0) {
          throw new EngineError(409, 'INVOICE_HAS_RECTIFICATIVAS', 'La factura tiene rectificativas o sustitutivas vigentes', {
            details: {
              rectificativas: referrers.map((r) => ({ idFactura: r.id, numeroFactura: r.numeroFactura, fechaExpedicion: r.fechaExpedicion })),
            },
          });
        }
      } else {
        invoice = {
          id: this.deps.ids.next('fac'),
          accountId: caller.account.id,
          entorno: caller.entorno,
          nifEmisor: fa.nifEmisor,
          sistemaFiscal: 'verifactu',
          provincia: null,
          serie,
          numero: fa.numero,
          fechaExpedicion: fa.fechaExpedicion,
          numeroFactura: numSerie,
          tipoFactura: null,
          importeTotal: null,
          cuotaTotal: null,
          estadoFactura: null,
          estadoEnvio: 'pendiente_proceso',
          urlValidacion: null,
          huella: null,
          csvAeat: null,
          idTbai: null,
          idMaquina: body.idMaquina ?? null,
          creadoEn: nowIso,
          ultimaModificacion: nowIso,
        };
        this.deps.invoices.insertInvoice(invoice);
      }
      const rejectedBefore = invoice ? this.deps.invoices.latestRegistro(invoice.id, ['anulacion'])?.estado === 'rechazada' : false;
      const chainKey = route.chainKey;
      const head = this.deps.invoices.chainHead<RegistroAnterior>(chainKey);
      const noVf = this.noVerifactu(caller.entorno, fa.nifEmisor);
      const rec = buildRegistroAnulacion({
        facturaAnulada: fa,
        anterior: head?.link ?? null,
        generadoEn: now,
        sistema: noVf ? noVf.sistema(route.sistema) : route.sistema,
        sinRegistroPrevio: body.sinRegistroPrevio === true,
        ...(rejectedBefore ? { rechazoPrevio: 'S' as const } : {}),
      });
      const idRegistro = this.deps.ids.next('reg');
      const answer: AnulacionAnswer = {
        code: 'SUCCESS',
        data: {
          idFactura: invoice.id,
          idRegistro,
          numeroFactura: invoice.numeroFactura,
          // Omitted for an invoice without series, never "" (spec, Absent values).
          ...(fa.serie !== undefined ? { serie: fa.serie } : {}),
          numero: fa.numero,
          estado: 'pendiente',
          creadoEn: nowIso,
          huella: rec.huella,
        },
      };
      const registroNuevo = nuevoRegistro({
        id: idRegistro,
        invoiceId: invoice.id,
        accountId: caller.account.id,
        entorno: caller.entorno,
        nifEmisor: fa.nifEmisor,
        sistemaFiscal: 'verifactu',
        tipo: 'anulacion',
        chainKey,
        chainSeq: (head?.length ?? 0) + 1,
        huella: rec.huella,
        huellaAnterior: head?.link.huella ?? null,
        fechaHoraHusoGenRegistro: rec.fechaHoraHusoGenRegistro,
        idMaquina: body.idMaquina ?? null,
        extra: {
          respuesta: answer,
          fechaExpedicion: fa.fechaExpedicion,
          sinRegistroPrevio: body.sinRegistroPrevio === true,
          rechazoPrevio: rejectedBefore ? 'S' : 'N',
          ...(route.dispositivo !== null ? { dispositivo: route.dispositivo } : {}),
        },
        now: nowIso,
      });
      const registro = noVf ? { ...registroNuevo, estadoEnvio: 'no_remitida' as const } : registroNuevo;
      const link: RegistroAnterior = {
        idEmisorFactura: fa.nifEmisor,
        numSerieFactura: numSerie,
        fechaExpedicionFactura: fa.fechaExpedicion,
        huella: rec.huella,
      };
      // «NO VERI*FACTU»: signed in this transaction, kept, never queued for filing.
      this.deps.invoices.appendRegistro(registro, link, noVf ? noVf.firmar(caller.entorno, rec.xml) : rec.xml);
      if (!noVf) this.deps.invoices.enqueueSubmission(registro, verifactuQueueKey(caller.entorno, fa.nifEmisor), nowIso);
      this.deps.invoices.updateInvoice(invoice.id, noVf ? { ultimaModificacion: nowIso, estadoFactura: 'anulada', estadoEnvio: 'no_remitida' } : { ultimaModificacion: nowIso });
      return answer;
    });
  }

  /**
   * RechazoPrevio from our own records (AEAT annex 5.1): X when AEAT holds nothing for the key
   * because every alta so far was rejected; S when the invoice is registered and the last
   * correction was rejected; N otherwise. A different value from the client is corrected and
   * said in `avisos`, since AEAT would reject it (3000/3002).
   */
  private rechazoPrevioFor(invoice: InvoiceRow): 'N' | 'S' | 'X' {
    const registros = this.deps.invoices.registrosOf(invoice.id).filter((r) => r.tipo !== 'anulacion');
    const accepted = registros.some((r) => r.estado === 'aceptada');
    const last = registros[0];
    if (!accepted) return last?.estado === 'rechazada' ? 'X' : 'N';
    return last?.estado === 'rechazada' ? 'S' : 'N';
  }

  private findInvoice(caller: Caller, nif: string, serie: string | undefined, numero: string, fecha: string) {
    return this.deps.invoices.findByIdentity({
      entorno: caller.entorno,
      nifEmisor: nif,
      serie: serie ?? '',
      numero,
      fechaExpedicion: fecha,
    });
  }

  /** Same identity: a replay when importeTotal and tipoFactura match, else 409. */
  private replayOf(existing: InvoiceRow, factura: FacturaVerifactu): StoredEmision {
    const conflicts: string[] = [];
    const stored = this.deps.invoices.invoiceDocs(existing.id).respuesta;
    if (existing.sistemaFiscal !== 'verifactu' || existing.tipoFactura === null || !stored) {
      throw invoiceIdentityConflict(['cabecera.numero']);
    }
    if (existing.importeTotal !== importeCanonico(factura.totales.importeTotal)) conflicts.push('totales.importeTotal');
    if (existing.tipoFactura !== factura.cabecera.tipoFactura) conflicts.push('cabecera.tipoFactura');
    if (conflicts.length > 0) throw invoiceIdentityConflict(conflicts);
    return JSON.parse(stored) as StoredEmision;
  }

  private issueAlta(
    caller: Caller,
    factura: FacturaVerifactu,
    avisos: string[],
    correction: { existing: InvoiceRow; rechazoPrevio: 'N' | 'S' | 'X' | undefined; fingerprint: string } | null,
    route: ChainRoute,
    /** urlValidacion, already built for the QR (urlOf), and for which mode. */
    temprana: { url: string; verifactu: boolean },
    /** «NO VERI*FACTU»: the record built and signed ahead against the head expected (crear). */
    antes: AltaSifFirmada | null,
  ): { answer: StoredEmision; firmadoAntes: boolean } {
    let url = temprana.url;
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const nif = factura.emisor.nif;
    const chainKey = route.chainKey;
    const head = this.deps.invoices.chainHead<RegistroAnterior>(chainKey);
    const noVf = this.noVerifactu(caller.entorno, nif);
    // The mode is read again here, in the transaction: a switch since the early QR changes its URL.
    if ((noVf === undefined) !== temprana.verifactu) url = this.urlOf(caller, factura, noVf === undefined);
    const build = (generadoEn: Date) =>
      buildRegistroAlta({
        factura,
        anterior: head?.link ?? null,
        generadoEn,
        sistema: noVf ? noVf.sistema(route.sistema) : route.sistema,
        ...(correction ? { subsanacion: { rechazoPrevio: correction.rechazoPrevio } } : {}),
      });
    // A signature made ahead is stored only with the very record it signs: built here, against the
    // stored head, byte for byte the one signed (so it links to the record stored before it, and no
    // other record took its place). Otherwise the head moved: built now and signed here.
    const firmadoAntes = noVf !== undefined && antes !== null && antes.generadoEn <= now ? build(antes.generadoEn) : undefined;
    const usarAntes = firmadoAntes !== undefined && firmadoAntes.xml === antes?.xml;
    const rec = usarAntes ? firmadoAntes : build(now);
    const idFactura = correction?.existing.id ?? this.deps.ids.next('fac');
    const answer: StoredEmision = {
      idFactura,
      estado: 'pendiente_proceso',
      numeroFactura: rec.numSerieFactura,
      sistemaFiscal: 'verifactu',
      entorno: caller.entorno,
      huella: rec.huella,
      fechaHoraHusoGenRegistro: rec.fechaHoraHusoGenRegistro,
      urlValidacion: url,
      ...(avisos.length > 0 ? { avisos } : {}),
    };
    const invoiceFields = {
      tipoFactura: factura.cabecera.tipoFactura,
      importeTotal: rec.importeTotal,
      cuotaTotal: rec.cuotaTotal,
      urlValidacion: url,
      huella: rec.huella,
      ultimaModificacion: nowIso,
    };
    const docs = { respuesta: JSON.stringify(answer), datos: JSON.stringify(factura) };
    if (correction) {
      const registered = correction.existing.estadoFactura === 'registrada';
      this.deps.invoices.updateInvoice(
        idFactura,
        noVf
          ? { ...invoiceFields, estadoFactura: 'registrada', estadoEnvio: 'no_remitida' }
          : { ...invoiceFields, estadoEnvio: registered ? correction.existing.estadoEnvio : 'pendiente_proceso' },
        docs,
      );
    } else {
      this.deps.invoices.insertInvoice({
        id: idFactura,
        accountId: caller.account.id,
        entorno: caller.entorno,
        nifEmisor: nif,
        sistemaFiscal: 'verifactu',
        provincia: null,
        serie: factura.cabecera.serie ?? '',
        numero: factura.cabecera.numero,
        fechaExpedicion: factura.cabecera.fechaExpedicion,
        numeroFactura: rec.numSerieFactura,
        // «NO VERI*FACTU»: registered once signed and stored; nothing waits for the AEAT.
        estadoFactura: noVf ? 'registrada' : null,
        estadoEnvio: noVf ? 'no_remitida' : 'pendiente_proceso',
        csvAeat: null,
        idTbai: null,
        idMaquina: factura.idMaquina ?? null,
        creadoEn: nowIso,
        ...invoiceFields,
      }, docs);
    }
    // A correction is the whole invoice again: its rectified/substituted invoices replace the old ones.
    if (correction) this.deps.invoices.deleteRefs(idFactura);
    const ref = (f: { serie?: string | undefined; numero: string; fechaExpedicion: string }) => ({
      numeroFactura: numSerieFactura(f.serie, f.numero),
      fechaExpedicion: f.fechaExpedicion,
    });
    if (factura.facturasRectificadas) {
      this.deps.invoices.insertRefs(idFactura, caller.entorno, nif, factura.facturasRectificadas.map(ref), 'rectificada');
    }
    if (factura.facturasSustituidas) {
      this.deps.invoices.insertRefs(idFactura, caller.entorno, nif, factura.facturasSustituidas.map(ref), 'sustituida');
    }
    const registroNuevo = nuevoRegistro({
      id: this.deps.ids.next('reg'),
      invoiceId: idFactura,
      accountId: caller.account.id,
      entorno: caller.entorno,
      nifEmisor: nif,
      sistemaFiscal: 'verifactu',
      tipo: correction ? 'subsanacion' : 'alta',
      chainKey,
      chainSeq: (head?.length ?? 0) + 1,
      huella: rec.huella,
      huellaAnterior: head?.link.huella ?? null,
      fechaHoraHusoGenRegistro: rec.fechaHoraHusoGenRegistro,
      idMaquina: factura.idMaquina ?? null,
      extra: {
        cuotaTotal: rec.cuotaTotal,
        importeTotal: rec.importeTotal,
        tipoFactura: factura.cabecera.tipoFactura,
        esRectificativa: factura.cabecera.tipoFactura.startsWith('R'),
        ...(factura.rectificativa ? { tipoRectificativa: factura.rectificativa.tipo } : {}),
        ...(correction ? { fingerprint: correction.fingerprint, rechazoPrevio: correction.rechazoPrevio ?? 'N' } : {}),
        ...(route.dispositivo !== null ? { dispositivo: route.dispositivo } : {}),
      },
      now: nowIso,
    });
    const registro = noVf ? { ...registroNuevo, estadoEnvio: 'no_remitida' as const } : registroNuevo;
    const link: RegistroAnterior = {
      idEmisorFactura: nif,
      numSerieFactura: rec.numSerieFactura,
      fechaExpedicionFactura: factura.cabecera.fechaExpedicion,
      huella: rec.huella,
    };
    // «NO VERI*FACTU»: signed (ahead or in this transaction), kept, never queued for filing.
    const xml = usarAntes && antes !== null ? antes.firmado : noVf ? noVf.firmar(caller.entorno, rec.xml) : rec.xml;
    this.deps.invoices.appendRegistro(registro, link, xml);
    if (!noVf) this.deps.invoices.enqueueSubmission(registro, verifactuQueueKey(caller.entorno, nif), nowIso);
    return { answer, firmadoAntes: usarAntes };
  }

  /** The «NO VERI*FACTU» hooks when the issuer's installation is in that mode. */
  private noVerifactu(entorno: Entorno, nif: string): NoVerifactuHooks | undefined {
    const hooks = this.deps.noVerifactu;
    return hooks !== undefined && hooks.modo(entorno, nif) === 'no_verifactu' ? hooks : undefined;
  }

  /** urlValidacion depends on the invoice's fields only (nif, NumSerieFactura, fecha, ImporteTotal as the record writes them). */
  private urlOf(caller: Caller, factura: FacturaVerifactu, verifactu = this.noVerifactu(caller.entorno, factura.emisor.nif) === undefined): string {
    return urlValidacion({
      verifactu,
      entorno: caller.entorno,
      nif: factura.emisor.nif,
      numSerie: numSerieFactura(factura.cabecera.serie, factura.cabecera.numero),
      fechaExpedicion: factura.cabecera.fechaExpedicion,
      importeTotal: importeCanonico(factura.totales.importeTotal),
    });
  }

  /**
   * The QR image starts on a worker before the transaction and overlaps with it: the URL is known
   * from the request alone. A failed transaction leaves an unused image, nothing else.
   */
  private qrEarly(caller: Caller, factura: FacturaVerifactu): { url: string; verifactu: boolean; png: Promise<string> } {
    const verifactu = this.noVerifactu(caller.entorno, factura.emisor.nif) === undefined;
    const url = this.urlOf(caller, factura, verifactu);
    const png = this.deps.pureWork.qrPngBase64(url);
    // The request may fail before awaiting it (a 4xx in the transaction): never an unhandled rejection.
    png.catch(() => undefined);
    return { url, verifactu, png };
  }

  private async withQr(stored: StoredEmision, replay: boolean, early: { url: string; png: Promise<string> }): Promise<EmisionAnswer> {
    // A replay answers the stored URL: the same as the request's when the identity and amount match,
    // rendered again only if an older version of the engine wrote it differently.
    const qrBase64 = stored.urlValidacion === early.url ? await early.png : await this.deps.pureWork.qrPngBase64(stored.urlValidacion);
    return { ...stored, qrBase64, ...(replay ? { yaExistente: true } : {}) };
  }
}
