import type { TbaiFaults } from './faults';
import type { InvoiceWrite, TbaiLedger, TbaiService, Verdict } from './ledger';
import { invoiceKey } from './ledger';
import type { ParsedAlta, ParsedAnulacion, ParsedZuzenduAlta, ParsedZuzenduBaja } from './parse';
import { ddmmyy, tbaiIdentifier } from './tbai-id';
import type { Provincia } from './urls';
import type { SignatureCheck, SignaturePolicy } from './xmldsig';

// Business rules applied to one record (an invoice or a cancellation), shared by
// the REST services (Araba, Gipuzkoa) and the LROE batches (Bizkaia). Each
// province answers with its own codes: the `Dialect` maps findings to them.

export interface ProvinciaConfig {
  /** Check the documents against the XSDs (002 / B4_1000001 / B4_2000001). */
  validateXsd: boolean;
  /** Verify the XAdES signature (warning 008 / 004 / B4_2000070). */
  verifySignature: boolean;
  /** Check EncadenamientoFacturaAnterior against the last invoice of the chain (010 / B4_2000060). */
  checkChain: boolean;
  /** Reject altas without DetallesFactura lines (003). Araba: true; Gipuzkoa, Bizkaia: false. */
  requireLines: boolean;
  /** Warn 009 on the first invoice of a new device (Araba only). */
  newDeviceWarning: boolean;
  /** Also warn 009 on the first invoice without NumSerieDispositivo (the "no device" chain). */
  newDeviceWarningWithoutNumber: boolean;
  /** Signature policies accepted (identifier + SigPolicyHash). */
  policies: SignaturePolicy[];
}

export type Finding =
  | 'idData'
  | 'noLines'
  | 'duplicate'
  | 'notFound'
  | 'alreadyCancelled'
  | 'nifMismatch'
  | 'signature'
  | 'chain'
  | 'newDevice';

export interface Dialect {
  code(service: TbaiService, f: Finding): string;
  estado(verdict: Verdict): string;
}

export interface CodeDetail {
  codigo: string;
  detail?: string;
}

export interface Outcome {
  verdict: Verdict;
  estado: string;
  rejection: CodeDetail | null;
  warnings: CodeDetail[];
  /** Identifier answered (the invoice's, also for cancellations and Zuzendu). */
  idTbai: string | null;
  key: string | null;
}

export interface RecordCtx {
  provincia: Provincia;
  ledger: TbaiLedger;
  faults: TbaiFaults;
  config: ProvinciaConfig;
  dialect: Dialect;
  at: string;
  submissionId: number;
  line: number;
  /** CSV of the request (Araba/Gipuzkoa), stored on registered invoices. */
  csv: string | null;
}

function idDataProblem(nif: string, fecha: string, sig: string, sigName: string): string | null {
  if (!/^[0-9A-Z]{9}$/.test(nif)) return 'NIF';
  if (ddmmyy(fecha) === null) return 'FechaExpedicionFactura';
  if (sig.replace(/\s+/g, '').length < 13) return sigName;
  return null;
}

function finish(
  ctx: RecordCtx,
  service: TbaiService,
  base: { key: string | null; nif: string | null; idTbai: string | null; device: string; signatureValue: string },
  r: {
    rejection: CodeDetail | null;
    warnings: CodeDetail[];
    duplicate?: boolean;
    sig?: SignatureCheck | null;
    chainOk?: boolean | null;
    chainProblem?: string | null;
    newDevice?: boolean;
    injected?: string | null;
  },
): Outcome {
  const verdict: Verdict = r.rejection ? 'rejected' : r.warnings.length > 0 ? 'accepted-with-warnings' : 'accepted';
  const estado = ctx.dialect.estado(verdict);
  ctx.ledger.writePresentation({
    submissionId: ctx.submissionId,
    provincia: ctx.provincia,
    line: ctx.line,
    service,
    key: base.key,
    nif: base.nif,
    idTbai: base.idTbai,
    device: base.device,
    signatureValue: base.signatureValue,
    estado,
    verdict,
    codes: r.rejection ? [r.rejection.codigo] : r.warnings.map((w) => w.codigo),
    duplicate: r.duplicate ?? false,
    signatureOk: r.sig ? r.sig.ok : null,
    signatureProblem: r.sig?.problem ?? null,
    chainOk: r.chainOk ?? null,
    chainProblem: r.chainProblem ?? null,
    newDevice: r.newDevice ?? false,
    injected: r.injected ?? null,
    receivedAt: ctx.at,
  });
  return { verdict, estado, rejection: r.rejection, warnings: r.warnings, idTbai: base.idTbai, key: base.key };
}

/** A record refused before it could be read (XSD, malformed, wrong root). */
export function rejectUnread(
  ctx: RecordCtx,
  service: TbaiService,
  rejection: CodeDetail,
  partial: { key?: string | null; nif?: string | null; device?: string; signatureValue?: string } = {},
): Outcome {
  return finish(
    ctx,
    service,
    { key: partial.key ?? null, nif: partial.nif ?? null, idTbai: null, device: partial.device ?? '', signatureValue: partial.signatureValue ?? '' },
    { rejection, warnings: [] },
  );
}

const dedupe = (ws: CodeDetail[]): CodeDetail[] => {
  const seen = new Set<string>();
  return ws.filter((w) => (seen.has(w.codigo) ? false : (seen.add(w.codigo), true)));
};

export function processAlta(
  ctx: RecordCtx,
  a: ParsedAlta,
  sig: SignatureCheck | null,
  extra: { rejection?: CodeDetail | null } = {},
): Outcome {
  const { provincia, ledger, config, dialect } = ctx;
  const key = invoiceKey(provincia, a.nif, a.serie, a.num);
  const idTbai = tbaiIdentifier(a.nif, a.fecha, a.signatureValue);
  const base = { key, nif: a.nif, idTbai, device: a.device, signatureValue: a.signatureValue };
  const existing = ledger.invoiceRow(key);

  const injected = ctx.faults.takeReject();
  let rejection: CodeDetail | null = injected ? { codigo: injected } : null;
  if (!rejection && extra.rejection) rejection = extra.rejection;
  if (!rejection) {
    const missing = idDataProblem(a.nif, a.fecha, a.signatureValue, 'SignatureValue');
    if (missing) rejection = { codigo: dialect.code('alta', 'idData'), detail: missing };
  }
  const duplicate = !rejection && existing !== null && existing.estado === 'registrada';
  if (duplicate) rejection = { codigo: dialect.code('alta', 'duplicate') };
  if (!rejection && config.requireLines && a.lineCount === 0) rejection = { codigo: dialect.code('alta', 'noLines') };

  /** The invoice as received, with the verdict's fields. */
  const writeAlta = (verdict: Pick<InvoiceWrite, 'estado' | 'registered' | 'codigo' | 'warnings' | 'csv'>): void =>
    ledger.writeInvoice({
      key,
      provincia,
      nif: a.nif,
      serie: a.serie,
      num: a.num,
      fecha: a.fecha,
      idTbai,
      signatureValue: a.signatureValue,
      device: a.device,
      importeTotal: a.importeTotal || null,
      ...verdict,
      corrected: false,
      correction: null,
      correctedAt: null,
      anuladaAt: null,
      anulacionCorrected: false,
      submissionId: ctx.submissionId,
      at: ctx.at,
      countReceived: true,
    });

  const head = ledger.chainHead(provincia, a.nif, a.device);
  const advanceChain = (): void => {
    if (!a.signatureValue) return;
    ledger.saveChainHead({
      provincia,
      nif: a.nif,
      device: a.device,
      key,
      serie: a.serie,
      num: a.num,
      fecha: a.fecha,
      signatureValue: a.signatureValue,
      length: (head?.length ?? 0) + 1,
    });
  };

  if (rejection) {
    if (duplicate) {
      ledger.bumpReceived(key);
    } else {
      // A content rejection: the treasury does not register the invoice, but it
      // exists in the issuer's chain (the next one is chained to it) and can be
      // corrected through Zuzendu. A registered or cancelled invoice is not downgraded.
      if (!existing || existing.estado === 'rechazada') {
        writeAlta({ estado: 'rechazada', registered: false, codigo: rejection.codigo, warnings: [], csv: null });
      } else {
        ledger.bumpReceived(key);
      }
      if (!existing) advanceChain();
    }
    return finish(ctx, 'alta', base, { rejection, warnings: [], duplicate, injected });
  }

  const warnings: CodeDetail[] = [];
  if (sig && !sig.ok) warnings.push({ codigo: dialect.code('alta', 'signature'), ...(sig.problem ? { detail: sig.problem } : {}) });

  let chainOk: boolean | null = null;
  let chainProblem: string | null = null;
  if (config.checkChain) {
    const enc = a.encadenamiento;
    if (!head) {
      // First invoice the treasury sees for this chain: nothing to compare with.
      chainOk = enc ? null : true;
      chainProblem = enc ? 'factura anterior desconocida para el emulador' : null;
    } else if (!enc) {
      chainOk = false;
      chainProblem = `falta EncadenamientoFacturaAnterior; última factura de la cadena: ${head.serie}/${head.num} de ${head.fecha}`;
    } else {
      const diffs: string[] = [];
      if (enc.serie !== head.serie) diffs.push(`SerieFacturaAnterior ${enc.serie || '(vacía)'} <> ${head.serie || '(vacía)'}`);
      if (enc.num !== head.num) diffs.push(`NumFacturaAnterior ${enc.num} <> ${head.num}`);
      if (enc.fecha !== head.fecha) diffs.push(`FechaExpedicionFacturaAnterior ${enc.fecha} <> ${head.fecha}`);
      if (enc.signatureValue !== head.signatureValue.slice(0, 100)) {
        diffs.push('SignatureValueFirmaFacturaAnterior no son los 100 primeros caracteres de la firma anterior');
      }
      chainOk = diffs.length === 0;
      chainProblem = diffs.length ? diffs.join('; ') : null;
    }
    if (chainOk === false) warnings.push({ codigo: dialect.code('alta', 'chain') });
  }

  const newDevice = !ledger.deviceKnown(provincia, a.nif, a.device);
  if (config.newDeviceWarning && newDevice && (a.device !== '' || config.newDeviceWarningWithoutNumber)) {
    warnings.push({
      codigo: dialect.code('alta', 'newDevice'),
      detail: a.device ? `dispositivo ${a.device} no vinculado al emisor` : 'factura sin NumSerieDispositivo',
    });
  }
  const forced = ctx.faults.takeWarning();
  if (forced) warnings.push({ codigo: forced });
  const ws = dedupe(warnings);

  writeAlta({ estado: 'registrada', registered: true, codigo: null, warnings: ws.map((w) => w.codigo), csv: ctx.csv });
  if (newDevice) ledger.addDevice(provincia, a.nif, a.device, key, ctx.at);
  advanceChain();
  return finish(ctx, 'alta', base, { rejection: null, warnings: ws, sig, chainOk, chainProblem, newDevice });
}

export function processAnulacion(ctx: RecordCtx, a: ParsedAnulacion, sig: SignatureCheck | null, extra: { rejection?: CodeDetail | null } = {}): Outcome {
  const { provincia, ledger, dialect } = ctx;
  const key = invoiceKey(provincia, a.nif, a.serie, a.num);
  const row = ledger.invoiceRow(key);
  const base = { key, nif: a.nif, idTbai: row?.idTbai ?? null, device: a.device, signatureValue: a.signatureValue };
  const injected = ctx.faults.takeReject();
  let rejection: CodeDetail | null = injected ? { codigo: injected } : (extra.rejection ?? null);
  if (!rejection && (!row || !row.registered)) rejection = { codigo: dialect.code('anulacion', 'notFound') };
  if (!rejection && row?.estado === 'anulada') rejection = { codigo: dialect.code('anulacion', 'alreadyCancelled') };
  if (rejection || !row) {
    return finish(ctx, 'anulacion', base, { rejection: rejection ?? { codigo: dialect.code('anulacion', 'notFound') }, warnings: [], injected });
  }
  const warnings: CodeDetail[] = [];
  if (sig && !sig.ok) warnings.push({ codigo: dialect.code('anulacion', 'signature'), ...(sig.problem ? { detail: sig.problem } : {}) });
  const forced = ctx.faults.takeWarning();
  if (forced) warnings.push({ codigo: forced });
  ledger.writeInvoice({ ...row, estado: 'anulada', anuladaAt: ctx.at, at: ctx.at, countReceived: false });
  return finish(ctx, 'anulacion', base, { rejection: null, warnings: dedupe(warnings), sig });
}

/**
 * Zuzendu alta. SUBSANAR registers an invoice that was rejected (or never
 * received) with corrected content and the original signature data, so the
 * identifier (from SignatureValueFirmaFactura) stays the same. MODIFICAR changes
 * an invoice already registered.
 */
export function processZuzenduAlta(ctx: RecordCtx, z: ParsedZuzenduAlta): Outcome {
  const { provincia, ledger, config, dialect } = ctx;
  const key = invoiceKey(provincia, z.nif, z.serie, z.num);
  const row = ledger.invoiceRow(key);
  const idTbai = row?.idTbai ?? tbaiIdentifier(z.nif, z.fecha, z.signatureValue);
  const base = { key, nif: z.nif, idTbai, device: z.device, signatureValue: z.signatureValue };
  const injected = ctx.faults.takeReject();
  let rejection: CodeDetail | null = injected ? { codigo: injected } : null;
  if (!rejection) {
    const missing = idDataProblem(z.nif, z.fecha, z.signatureValue, 'SignatureValueFirmaFactura');
    if (missing) rejection = { codigo: dialect.code('zuzendu-alta', 'idData'), detail: missing };
  }
  if (!rejection && z.accion === 'SUBSANAR' && row?.registered) {
    rejection = { codigo: dialect.code('zuzendu-alta', 'duplicate') };
  }
  if (!rejection && z.accion === 'MODIFICAR' && row?.estado !== 'registrada') {
    rejection = { codigo: dialect.code('zuzendu-alta', 'notFound') };
  }
  if (!rejection && config.requireLines && z.lineCount === 0) rejection = { codigo: dialect.code('zuzendu-alta', 'noLines') };
  if (rejection) return finish(ctx, 'zuzendu-alta', base, { rejection, warnings: [], injected });

  const warnings: CodeDetail[] = [];
  if (row && row.signatureValue && row.signatureValue.slice(0, 100) !== z.signatureValue.slice(0, 100)) {
    warnings.push({
      codigo: dialect.code('zuzendu-alta', 'signature'),
      detail: 'SignatureValueFirmaFactura no coincide con la firma de la factura recibida',
    });
  }
  const forced = ctx.faults.takeWarning();
  if (forced) warnings.push({ codigo: forced });
  const ws = dedupe(warnings);
  ledger.writeInvoice({
    key,
    provincia,
    nif: z.nif,
    serie: z.serie,
    num: z.num,
    fecha: z.fecha,
    idTbai,
    signatureValue: row?.signatureValue || z.signatureValue,
    device: row?.device ?? z.device,
    importeTotal: z.importeTotal || row?.importeTotal || null,
    estado: 'registrada',
    registered: true,
    codigo: null,
    warnings: ws.map((w) => w.codigo),
    csv: ctx.csv,
    corrected: true,
    correction: z.accion,
    correctedAt: ctx.at,
    anuladaAt: null,
    anulacionCorrected: false,
    submissionId: ctx.submissionId,
    at: ctx.at,
    countReceived: false,
  });
  if (!row && z.signatureValue && !ledger.deviceKnown(provincia, z.nif, z.device)) {
    ledger.addDevice(provincia, z.nif, z.device, key, ctx.at);
  }
  return finish(ctx, 'zuzendu-alta', base, { rejection: null, warnings: ws });
}

/** Zuzendu baja: a cancellation sent again after a rejection. */
export function processZuzenduBaja(ctx: RecordCtx, z: ParsedZuzenduBaja): Outcome {
  const { provincia, ledger, dialect } = ctx;
  const key = invoiceKey(provincia, z.nif, z.serie, z.num);
  const row = ledger.invoiceRow(key);
  const base = { key, nif: z.nif, idTbai: row?.idTbai ?? null, device: z.device, signatureValue: z.signatureValue };
  const injected = ctx.faults.takeReject();
  let rejection: CodeDetail | null = injected ? { codigo: injected } : null;
  if (!rejection && (!row || !row.registered)) rejection = { codigo: dialect.code('zuzendu-baja', 'notFound') };
  if (!rejection && row?.estado === 'anulada') rejection = { codigo: dialect.code('zuzendu-baja', 'alreadyCancelled') };
  if (rejection || !row) {
    return finish(ctx, 'zuzendu-baja', base, { rejection: rejection ?? { codigo: dialect.code('zuzendu-baja', 'notFound') }, warnings: [], injected });
  }
  const warnings: CodeDetail[] = [];
  const forced = ctx.faults.takeWarning();
  if (forced) warnings.push({ codigo: forced });
  ledger.writeInvoice({ ...row, estado: 'anulada', anuladaAt: ctx.at, anulacionCorrected: true, at: ctx.at, countReceived: false });
  return finish(ctx, 'zuzendu-baja', base, { rejection: null, warnings });
}
