import { Decimal } from 'decimal.js';
import type {
  FacturaTicketbai,
  Provincia,
  TicketbaiAnularBody,
  TicketbaiAnularResponse,
  TicketbaiEmisionResponse,
  TicketbaiSubsanarBody,
} from '../../../../src-shared/api/ticketbai';
import type { Entorno, Hacienda } from '../../../../src-shared/api/common';
import type { IssuerStore } from '../../clients/store';
import { issuerChainKey, ticketbaiDeviceChainKey } from '../../devices/chain-keys';
import type { DeviceRouting, Writer } from '../../devices/routing';
import { EngineError, invoiceIdentityConflict, invoiceNotFound, invoiceStatusInvalid } from '../../core/errors';
import type { Caller } from '../../core/caller';
import { nuevoRegistro, type InvoiceRow, type InvoiceStore, type RegistroRow } from '../../invoices/store';
import { ChainPipeline, type ChainTail } from '../../issuing/chain-pipeline';
import type { GroupCommit } from '../../issuing/group-commit';
import { admitIssuer } from '../../issuing/issuer-gate';
import type { Clock } from '../../platform/clock';
import type { IdGenerator } from '../../platform/ids';
import { CAMPOS_CANONICOS_TICKETBAI, correctionFingerprint } from '../../issuing/fingerprint';
import { importeCanonico } from '../../issuing/importes';
import { identificadorTbai } from './record/identificador';
import { POLITICAS_FIRMA, type PoliticaFirma } from './politicas';
import { firmarAlta, linkOf, type AltaAFirmar } from './record/alta-firmada';
import { urlQrTbai } from './record/qr';
import { signTicketBai, type SignedTicketBai } from './record/xades';
import {
  buildTicketBaiAnulacion,
  importeTotalFacturaTbai,
  type FacturaAnteriorTbai,
  type SoftwareTbai,
} from './record/xml';
import { buildZuzenduSubsanar } from './authority/zuzendu';
import { validarAltaTbai } from './reglas';
import { fechaLocalDdMmAaaa } from '../../issuing/fecha-hora';
import { validation } from '../../core/errors';

/** What TicketBAI issuing hands to the worker threads (pure-work/PureWork does it). */
export interface TbaiPureWork {
  qrPngBase64(url: string): Promise<string>;
  firmarCadenaTbai(anterior: FacturaAnteriorTbai | null, altas: Omit<AltaAFirmar, 'anterior'>[]): Promise<SignedTicketBai[]>;
}

/** The key and certificate that sign in one environment (per install; per issuer later). */
export interface SigningIdentity {
  privateKeyPem: string;
  certificatePem: string;
  chainPem?: string[] | undefined;
}

type StoredEmision = Omit<TicketbaiEmisionResponse, 'qrBase64' | 'yaExistente'>;

/** An alta signed ahead of its transaction, against `tail`, at `generadoEn`. */
interface FirmadaAntes {
  signed: SignedTicketBai;
  generadoEn: Date;
  dispositivo: string | null;
  tail: ChainTail<FacturaAnteriorTbai>;
}

const HACIENDA: Record<Provincia, Hacienda> = { araba: 'tbai-araba', bizkaia: 'tbai-bizkaia', gipuzkoa: 'tbai-gipuzkoa' };
const TBAI_HACIENDAS: Hacienda[] = ['tbai-araba', 'tbai-bizkaia', 'tbai-gipuzkoa'];

/**
 * Treasury answers that are about the sender (certificate) or the service, not the invoice's
 * content: the same signed invoice must be sent again unmodified (Gipuzkoa 001, 006).
 */
const RECHAZOS_NO_DE_CONTENIDO = new Set(['001', '006']);

const provinceMismatch = (provincia: string, hacienda: string) =>
  new EngineError(400, 'PROVINCE_MISMATCH', `provincia ${provincia} no corresponde a la hacienda del emisor (${hacienda})`, {
    campo: 'provincia',
    errors: [`provincia: the issuer files with ${hacienda}`],
  });

/**
 * The treasuries follow one chain per declared device (NumSerieDispositivo, the last 30 characters
 * of idMaquina; two idMaquina sharing them are one device) and one for invoices declaring none.
 * Which one an invoice takes is the phase's decision (devices/routing.ts): in `activa` a device
 * declares itself; otherwise, and for the centralized writer, nothing is declared and the issuer's
 * single chain is used.
 */
export function ticketbaiChainKey(entorno: Entorno, nif: string, idMaquina?: string | null): string {
  return idMaquina ? ticketbaiDeviceChainKey(entorno, nif, idMaquina) : issuerChainKey('ticketbai', entorno, nif);
}
/** Cancellations are not chained in TicketBAI; they get a sequence of their own. */
function anulacionesChainKey(entorno: string, nif: string): string {
  return `${entorno}|ticketbai-anulaciones|${nif}`;
}
export function ticketbaiQueueKey(entorno: string, provincia: Provincia, nif: string): string {
  return `${entorno}|tbai-${provincia}|${nif}`;
}

/**
 * TicketBAI issuing: the invoice is signed at the till (XAdES-EPES), chained to the previous
 * invoice's signature, given its TBAI identifier and QR, and committed with its submission job
 * in one transaction shared by concurrent requests (group commit).
 */
export class TicketbaiIssuing {
  private readonly politicas: Readonly<Record<Provincia, PoliticaFirma>>;
  /** Altas signed on the worker pool ahead of their transaction, chain by chain. */
  private readonly pipeline = new ChainPipeline<FacturaAnteriorTbai, Omit<AltaAFirmar, 'anterior'>, SignedTicketBai>(async (tail, altas) => {
    const signed = await this.deps.pureWork.firmarCadenaTbai(tail.link, altas);
    return signed.map((s, i) => ({ signed: s, next: { length: tail.length + i + 1, link: linkOf(altas[i]!.factura, s.signatureValue) } }));
  });

  constructor(
    private readonly deps: {
      invoices: InvoiceStore;
      issuers: IssuerStore;
      clock: Clock;
      ids: IdGenerator;
      groupCommit: GroupCommit;
      /** QR images and chained signatures, off the main thread (pure-work/). */
      pureWork: TbaiPureWork;
      routing: DeviceRouting;
      software: SoftwareTbai;
      /** The signing identity of an environment; throws 503 when LIVE has none configured. */
      signer: (entorno: 'test' | 'live') => SigningIdentity;
      /** Signature policy per treasury, from configuration (default: POLITICAS_FIRMA). */
      politicas?: Readonly<Record<Provincia, PoliticaFirma>> | undefined;
    },
  ) {
    this.politicas = deps.politicas ?? POLITICAS_FIRMA;
  }

  private admit(caller: Caller, nif: string, provincia: Provincia, newRegistration: boolean) {
    const issuer = admitIssuer(this.deps.issuers, caller, nif, TBAI_HACIENDAS, { newRegistration });
    if (issuer.hacienda !== HACIENDA[provincia]) throw provinceMismatch(provincia, issuer.hacienda);
    return issuer;
  }

  /** The local rules: the first error as a 400 naming its field, else the avisos. */
  private validate(factura: FacturaTicketbai): string[] {
    const result = validarAltaTbai(factura, { hoy: fechaLocalDdMmAaaa(this.deps.clock.now()) });
    const first = result.errors[0];
    if (first) throw validation(first.campo, first.message, result.errors.map((e) => `${e.campo}: ${e.message}`));
    return result.avisos;
  }

  async crear(caller: Caller, factura: FacturaTicketbai): Promise<TicketbaiEmisionResponse> {
    const avisos = this.validate(factura);
    const issuer = this.admit(caller, factura.emisor.nif, factura.provincia, false);
    const signer = this.deps.signer(caller.entorno);
    const commitAlta = (ahead: FirmadaAntes | null) =>
      this.deps.groupCommit.run(() => {
        const existing = this.find(caller, factura.emisor.nif, factura.serie, factura.numero, factura.fechaExpedicion);
        if (existing) return { answer: this.replayOf(existing, factura), replay: true, stored: false };
        // A replay is answered whatever the billing state; a new registration needs it active.
        this.admit(caller, factura.emisor.nif, factura.provincia, true);
        const writer = this.deps.routing.routeNewInvoice(this.target(caller, factura.emisor.nif), factura.serie ?? '', factura.idMaquina);
        const issued = this.issueAlta(caller, factura, signer, issuer.nombre, null, declaredDevice(writer), avisos, ahead);
        return { answer: issued.answer, replay: false, stored: issued.signedAhead };
      });
    const dispositivo = this.newAltaDevice(caller, factura);
    if (dispositivo === undefined) {
      // A replay, or a request the transaction will refuse: no signature ahead.
      const outcome = await commitAlta(null);
      return this.withQr(outcome.answer, outcome.replay);
    }
    const chainKey = ticketbaiChainKey(caller.entorno, factura.emisor.nif, dispositivo);
    const generadoEn = this.deps.clock.now();
    const { anterior: _signedAgainst, ...alta } = this.altaAFirmar(factura, signer, issuer.nombre, dispositivo, null, generadoEn);
    const outcome = await this.pipeline.run(
      chainKey,
      alta,
      () => {
        const head = this.deps.invoices.chainHead<FacturaAnteriorTbai>(chainKey);
        return { length: head?.length ?? 0, link: head?.link ?? null };
      },
      async (signed, tail) => {
        const committed = await commitAlta({ signed, generadoEn, dispositivo, tail });
        return { value: committed, stored: committed.stored };
      },
    );
    return this.withQr(outcome.answer, outcome.replay);
  }

  /**
   * Outside the transaction, a first look at where a new alta goes — the device it declares, null
   * for the issuer's chain — so that it can be signed before the transaction; undefined for a
   * replay or when the routing refuses it (the transaction decides and answers those).
   */
  private newAltaDevice(caller: Caller, factura: FacturaTicketbai): string | null | undefined {
    if (this.find(caller, factura.emisor.nif, factura.serie, factura.numero, factura.fechaExpedicion)) return undefined;
    try {
      return declaredDevice(this.deps.routing.previewNewInvoice(this.target(caller, factura.emisor.nif), factura.idMaquina));
    } catch {
      return undefined;
    }
  }

  private altaAFirmar(
    factura: FacturaTicketbai,
    signer: SigningIdentity,
    emisorNombre: string,
    dispositivo: string | null,
    anterior: FacturaAnteriorTbai | null,
    generadoEn: Date,
  ): AltaAFirmar {
    // The request's idMaquina stays on the invoice and record; the XML declares only the routed device.
    const { idMaquina: _metadata, ...sinDispositivo } = factura;
    return {
      factura: dispositivo !== null ? { ...sinDispositivo, idMaquina: dispositivo } : sinDispositivo,
      emisorNombre,
      anterior,
      software: this.deps.software,
      generadoEn,
      firma: { privateKeyPem: signer.privateKeyPem, certificatePem: signer.certificatePem, chainPem: signer.chainPem, policy: this.politicas[factura.provincia] },
    };
  }

  async subsanar(caller: Caller, body: TicketbaiSubsanarBody): Promise<TicketbaiEmisionResponse> {
    const { subsanacion: _flag, ...factura } = body;
    const avisos = this.validate(factura);
    const issuer = this.admit(caller, factura.emisor.nif, factura.provincia, false);
    const signer = this.deps.signer(caller.entorno);
    const outcome = await this.deps.groupCommit.run(() => {
      const existing = this.find(caller, factura.emisor.nif, factura.serie, factura.numero, factura.fechaExpedicion);
      if (!existing || existing.sistemaFiscal !== 'ticketbai' || existing.tipoFactura === null) throw invoiceNotFound();
      const last = this.latestAltaOrCorrection(existing.id);
      if (!last) throw invoiceNotFound();
      const { print, matches } = correctionFingerprint(factura, CAMPOS_CANONICOS_TICKETBAI);
      const stored = this.deps.invoices.invoiceDocs(existing.id).respuesta;
      if (last.tipo === 'subsanacion' && matches(JSON.parse(last.extra).fingerprint) && stored) {
        return { answer: JSON.parse(stored) as StoredEmision, replay: true };
      }
      if (last.estado !== 'rechazada') {
        throw invoiceStatusInvalid('Solo se subsana una factura rechazada por la hacienda');
      }
      this.deps.routing.checkFollowUp(this.target(caller, factura.emisor.nif), factura.idMaquina);
      if (RECHAZOS_NO_DE_CONTENIDO.has(last.codigoRespuesta ?? '')) {
        throw new EngineError(409, 'RESEND_UNMODIFIED_REQUIRED', 'El rechazo no fue por el contenido: reenvíe la factura sin modificarla', {
          details: { codigo: last.codigoRespuesta, descripcion: last.descripcionRespuesta },
        });
      }
      if (factura.provincia !== 'bizkaia') return { answer: this.viaZuzendu(caller, existing, factura, print, avisos), replay: false };
      // Bizkaia has no Zuzendu: the corrected invoice is signed and chained again (same identity), on
      // the chain — the declared device — of the record it corrects.
      const device = (JSON.parse(last.extra) as { dispositivo?: string }).dispositivo ?? null;
      return { answer: this.issueAlta(caller, factura, signer, issuer.nombre, { existing, fingerprint: print }, device, avisos, null).answer, replay: false };
    });
    return this.withQr(outcome.answer, outcome.replay);
  }

  async anular(caller: Caller, body: TicketbaiAnularBody): Promise<TicketbaiAnularResponse> {
    const issuer = this.admit(caller, body.nifEmisor, body.provincia, false);
    const signer = this.deps.signer(caller.entorno);
    return this.deps.groupCommit.run(() => {
      const invoice = this.find(caller, body.nifEmisor, body.serie, body.numero, body.fechaExpedicion);
      if (!invoice || invoice.sistemaFiscal !== 'ticketbai' || !invoice.idTbai) throw invoiceNotFound();
      const previous = this.deps.invoices.latestRegistro(invoice.id, ['anulacion']);
      if (previous && previous.estado !== 'rechazada') {
        const stored = JSON.parse(previous.extra).respuesta as TicketbaiAnularResponse;
        return { ...stored, data: { ...stored.data, estado: previous.estado, yaAnulada: true } };
      }
      // Cancellations are not chained in TicketBAI and claim no series: only the idMaquina is checked.
      this.deps.routing.checkFollowUp(this.target(caller, body.nifEmisor), body.idMaquina);
      const now = this.deps.clock.now();
      const nowIso = now.toISOString();
      const xml = buildTicketBaiAnulacion({ anulacion: body, nombreEmisor: issuer.nombre, software: this.deps.software });
      const signed = signTicketBai(xml, { ...signer, policy: this.politicas[body.provincia], signingTime: now, canonicalInput: true });
      const chainKey = anulacionesChainKey(caller.entorno, body.nifEmisor);
      const head = this.deps.invoices.chainHead<{ n: number }>(chainKey);
      const idRegistro = this.deps.ids.next('reg');
      const answer: TicketbaiAnularResponse = {
        code: 'SUCCESS',
        data: {
          idFactura: invoice.id,
          idRegistro,
          numeroFactura: invoice.numeroFactura,
          ...(invoice.serie ? { serie: invoice.serie } : {}),
          numero: invoice.numero,
          estado: 'pendiente',
          creadoEn: nowIso,
          idTbai: invoice.idTbai,
        },
      };
      const registro = this.registroRow(caller, invoice, {
        id: idRegistro,
        tipo: 'anulacion',
        chainKey,
        chainSeq: (head?.length ?? 0) + 1,
        idMaquina: body.idMaquina ?? null,
        extra: { respuesta: answer, fechaExpedicion: body.fechaExpedicion, provincia: body.provincia, sinRegistroPrevio: false, rechazoPrevio: 'N' },
        now: nowIso,
      });
      this.deps.invoices.appendRegistro(registro, { n: registro.chainSeq }, signed.signedXml);
      this.deps.invoices.enqueueSubmission(registro, ticketbaiQueueKey(caller.entorno, body.provincia, body.nifEmisor), nowIso);
      this.deps.invoices.updateInvoice(invoice.id, { ultimaModificacion: nowIso });
      return answer;
    });
  }

  /**
   * The invoice's newest alta or correction, by creation. Not by chainSeq: a Zuzendu correction
   * has a sequence of its own and the alta sits in its device's chain, so their numbers don't compare.
   */
  private latestAltaOrCorrection(invoiceId: string): RegistroRow | undefined {
    let latest: RegistroRow | undefined;
    for (const r of this.deps.invoices.registrosOf(invoiceId)) {
      if (r.tipo !== 'alta' && r.tipo !== 'subsanacion') continue;
      if (!latest || r.creadoEn > latest.creadoEn || (r.creadoEn === latest.creadoEn && r.id > latest.id)) latest = r;
    }
    return latest;
  }

  private target(caller: Caller, nif: string) {
    return { accountId: caller.account.id, entorno: caller.entorno, nif };
  }

  private find(caller: Caller, nif: string, serie: string | undefined, numero: string, fecha: string) {
    return this.deps.invoices.findByIdentity({ entorno: caller.entorno, nifEmisor: nif, serie: serie ?? '', numero, fechaExpedicion: fecha });
  }

  private replayOf(existing: InvoiceRow, factura: FacturaTicketbai): StoredEmision {
    const stored = this.deps.invoices.invoiceDocs(existing.id).respuesta;
    if (existing.sistemaFiscal !== 'ticketbai' || !stored) throw invoiceIdentityConflict(['numero']);
    const conflicts: string[] = [];
    if (existing.importeTotal !== importeCanonico(factura.importeTotal)) conflicts.push('importeTotal');
    if (existing.tipoFactura !== factura.tipoFactura) conflicts.push('tipoFactura');
    if (conflicts.length > 0) throw invoiceIdentityConflict(conflicts);
    return JSON.parse(stored) as StoredEmision;
  }

  private issueAlta(
    caller: Caller,
    factura: FacturaTicketbai,
    signer: SigningIdentity,
    emisorNombre: string,
    correction: { existing: InvoiceRow; fingerprint: string } | null,
    /** The idMaquina the XML declares (NumSerieDispositivo) and whose chain it takes; null: none, the issuer's chain. */
    dispositivo: string | null,
    /** The local rules' avisos (totals against the breakdown). */
    avisosReglas: string[],
    /** Signed before the transaction: used only if it declares this device and chains to the stored head. */
    ahead: FirmadaAntes | null,
  ): { answer: StoredEmision; signedAhead: boolean } {
    const nif = factura.emisor.nif;
    const chainKey = ticketbaiChainKey(caller.entorno, nif, dispositivo);
    const head = this.deps.invoices.chainHead<FacturaAnteriorTbai>(chainKey);
    const usable =
      ahead !== null &&
      ahead.dispositivo === dispositivo &&
      ahead.tail.length === (head?.length ?? 0) &&
      (ahead.tail.link?.signatureValue ?? null) === (head?.link.signatureValue ?? null)
        ? ahead
        : null;
    const now = usable?.generadoEn ?? this.deps.clock.now();
    const nowIso = now.toISOString();
    const signed = usable?.signed ?? firmarAlta(this.altaAFirmar(factura, signer, emisorNombre, dispositivo, head?.link ?? null, now));
    const idTbai = identificadorTbai({ nif, fechaExpedicion: factura.fechaExpedicion, signatureValue: signed.signatureValue });
    const importeXml = importeTotalFacturaTbai(factura);
    const url = urlQrTbai({
      provincia: factura.provincia,
      entorno: caller.entorno,
      idTbai,
      serie: factura.serie,
      numero: factura.numero,
      importeTotal: importeXml,
    });
    const numeroFactura = `${factura.serie ?? ''}${factura.numero}`;
    const idFactura = correction?.existing.id ?? this.deps.ids.next('fac');
    // Araba flags the first invoice of each declared device (the chain's first) with warning 009 and accepts it: say so now.
    const avisos =
      factura.provincia === 'araba' && !correction && head === undefined
        ? [...avisosReglas, '009: primera factura de este dispositivo en Araba; la hacienda la aceptará con el aviso 009 (posible error de encadenamiento)']
        : avisosReglas;
    const answer: StoredEmision = {
      idFactura,
      estado: 'en_cola',
      idTbai,
      urlValidacion: url,
      numeroFactura,
      sistemaFiscal: 'ticketbai',
      entorno: caller.entorno,
      ...(avisos.length > 0 ? { avisos } : {}),
    };
    const fields = {
      tipoFactura: factura.tipoFactura,
      importeTotal: importeCanonico(factura.importeTotal),
      cuotaTotal: cuotaTotal(factura),
      urlValidacion: url,
      idTbai,
      estadoEnvio: 'pendiente_proceso' as const,
      ultimaModificacion: nowIso,
    };
    const docs = { respuesta: JSON.stringify(answer), datos: JSON.stringify(factura) };
    if (correction) {
      this.deps.invoices.updateInvoice(idFactura, fields, docs);
    } else {
      this.deps.invoices.insertInvoice(
        {
          id: idFactura,
          accountId: caller.account.id,
          entorno: caller.entorno,
          nifEmisor: nif,
          sistemaFiscal: 'ticketbai',
          provincia: factura.provincia,
          serie: factura.serie ?? '',
          numero: factura.numero,
          fechaExpedicion: factura.fechaExpedicion,
          numeroFactura,
          estadoFactura: null,
          huella: null,
          csvAeat: null,
          idMaquina: factura.idMaquina ?? null,
          creadoEn: nowIso,
          ...fields,
        },
        docs,
      );
    }
    const registro = this.registroRow(caller, { id: idFactura, nifEmisor: nif }, {
      id: this.deps.ids.next('reg'),
      tipo: correction ? 'subsanacion' : 'alta',
      chainKey,
      chainSeq: (head?.length ?? 0) + 1,
      idMaquina: factura.idMaquina ?? null,
      extra: {
        cuotaTotal: fields.cuotaTotal,
        importeTotal: fields.importeTotal,
        tipoFactura: factura.tipoFactura,
        esRectificativa: factura.tipoFactura.startsWith('R'),
        ...(factura.rectificativa ? { tipoRectificativa: factura.rectificativa.tipo } : {}),
        provincia: factura.provincia,
        idTbai,
        ...(correction ? { fingerprint: correction.fingerprint } : {}),
        ...(dispositivo !== null ? { dispositivo } : {}),
      },
      now: nowIso,
    });
    this.deps.invoices.appendRegistro(registro, linkOf(factura, signed.signatureValue), signed.signedXml);
    this.deps.invoices.enqueueSubmission(registro, ticketbaiQueueKey(caller.entorno, factura.provincia, nif), nowIso);
    return { answer, signedAhead: usable !== null };
  }

  /**
   * Gipuzkoa and Araba: a record rejected for its content is corrected through Zuzendu, which
   * keeps the original idTbai, QR and signature — the customer already holds that QR.
   */
  private viaZuzendu(caller: Caller, existing: InvoiceRow, factura: FacturaTicketbai, fingerprint: string, avisos: string[]): StoredEmision {
    const nowIso = this.deps.clock.now().toISOString();
    const original = this.deps.invoices.latestRegistro(existing.id, ['alta']);
    const originalXml = original ? this.deps.invoices.registroXml(original.id) : undefined;
    if (!original || !originalXml) throw invoiceNotFound();
    const request = buildZuzenduSubsanar({ factura, originalSignedXml: originalXml, accion: 'SUBSANAR' });
    const stored = JSON.parse(this.deps.invoices.invoiceDocs(existing.id).respuesta ?? '{}') as StoredEmision;
    const { avisos: _avisosOriginal, ...sinAvisos } = stored;
    const answer: StoredEmision = { ...sinAvisos, viaZuzendu: true, ...(avisos.length > 0 ? { avisos } : {}) };
    const chainKey = `${caller.entorno}|ticketbai-zuzendu|${existing.nifEmisor}`;
    const head = this.deps.invoices.chainHead<{ n: number }>(chainKey);
    const registro = this.registroRow(caller, existing, {
      id: this.deps.ids.next('reg'),
      tipo: 'subsanacion',
      chainKey,
      chainSeq: (head?.length ?? 0) + 1,
      idMaquina: factura.idMaquina ?? null,
      extra: {
        provincia: factura.provincia,
        idTbai: existing.idTbai,
        viaZuzendu: true,
        fingerprint,
        tipoFactura: factura.tipoFactura,
        esRectificativa: factura.tipoFactura.startsWith('R'),
        ...(factura.rectificativa ? { tipoRectificativa: factura.rectificativa.tipo } : {}),
        importeTotal: importeCanonico(factura.importeTotal),
        cuotaTotal: cuotaTotal(factura),
      },
      now: nowIso,
    });
    this.deps.invoices.appendRegistro(registro, { n: registro.chainSeq }, request);
    this.deps.invoices.enqueueSubmission(registro, ticketbaiQueueKey(caller.entorno, factura.provincia, existing.nifEmisor), nowIso);
    // The corrected content is what the treasury registers: reads and events show its amounts;
    // idTbai, QR and signature stay the original's.
    this.deps.invoices.updateInvoice(
      existing.id,
      {
        tipoFactura: factura.tipoFactura,
        importeTotal: importeCanonico(factura.importeTotal),
        cuotaTotal: cuotaTotal(factura),
        estadoEnvio: 'pendiente_proceso',
        ultimaModificacion: nowIso,
      },
      { respuesta: JSON.stringify(answer), datos: JSON.stringify(factura) },
    );
    return answer;
  }

  private registroRow(
    caller: Caller,
    invoice: Pick<InvoiceRow, 'id' | 'nifEmisor'>,
    r: { id: string; tipo: RegistroRow['tipo']; chainKey: string; chainSeq: number; idMaquina: string | null; extra: Record<string, unknown>; now: string },
  ): RegistroRow {
    return nuevoRegistro({
      ...r,
      invoiceId: invoice.id,
      accountId: caller.account.id,
      entorno: caller.entorno,
      nifEmisor: invoice.nifEmisor,
      sistemaFiscal: 'ticketbai',
    });
  }

  private async withQr(stored: StoredEmision, replay: boolean): Promise<TicketbaiEmisionResponse> {
    return { ...stored, qrBase64: await this.deps.pureWork.qrPngBase64(stored.urlValidacion), ...(replay ? { yaExistente: true } : {}) };
  }
}

/** The total tax of the breakdown (VAT and equivalence surcharge), for reads and events. */
function cuotaTotal(factura: FacturaTicketbai): string {
  let total = new Decimal(0);
  for (const d of factura.desglose) {
    if (d.cuota !== undefined) total = total.plus(d.cuota);
    if (d.cuotaRecargoEquivalencia !== undefined) total = total.plus(d.cuotaRecargoEquivalencia);
  }
  return importeCanonico(total);
}

/** The device an alta declares and chains on: only a device writer in `activa`. */
function declaredDevice(writer: Writer): string | null {
  return writer.kind === 'dispositivo' ? writer.idMaquina : null;
}
