import type { CensusDirectory } from '../census-data';
import { madridDayNumber } from '../time';
import { ADMISSIBLE_PRIORITY, describeError } from './errors';
import { businessRules } from './rules';
import { cents, dayNumber } from './values';
import type { Faults } from './faults';
import type { HuellaCheck } from './huella';
import { checkHuellaAlta, checkHuellaAnulacion } from './huella';
import type { ChainHead, Ledger, LedgerRecord } from './ledger';
import { recordKey, sifOf } from './ledger';
import type { AltaRecord, ParsedRecord, ParsedRequest } from './parse';
import type { EstadoEnvio, EstadoRegistro, EstadoRegistroDuplicado, RespuestaLinea } from './soap';

export { cents, dayNumber } from './values';

// Business rules applied to each record, per Validaciones_Errores_Veri-Factu
// (sections 3.1.3, 3.1.4, 4.3.1 and the annex of admissible operations).

export interface ProcessorConfig {
  /** Seconds FechaHoraHusoGenRegistro may be ahead of the emulator clock before 2004. */
  futureToleranceSeconds: number;
  /** Check Destinatarios NIFs against the census (2001). */
  checkRecipients: boolean;
}

export interface ProcessContext {
  ledger: Ledger;
  census: CensusDirectory;
  faults: Faults;
  config: ProcessorConfig;
  now: Date;
  submissionId: number;
  idPeticion: string;
  /** CSV this submission gets if anything in it is accepted. */
  csv: string;
  /** RefRequerimiento of a submission on the requirement endpoint (Descripción SWeb Anexo III). */
  requerimiento?: string;
}

/**
 * Codes that still reject a record sent under requirement: "las validaciones asociadas a la
 * identificación de <NIF> o <IdOtro>" (Validaciones §4.3.2), and the syntactic checks of a record
 * (dates, huella, FechaHoraHusoGenRegistro), which are not business validations (§3, point 2).
 */
const REQUERIMIENTO_REJECTS = new Set([
  1105, 1109, 1111, 1122, 1123, 1126, 1131, 1211, 1228, 1229, 1230, 1231, 1232, 1244, 1254, 1255, 1262, 1290, 1292,
]);

export interface ProcessResult {
  lineas: RespuestaLinea[];
  estadoEnvio: EstadoEnvio;
  accepted: number;
  acceptedWithErrors: number;
  rejected: number;
}

const GEN_FORMAT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})([+-])(\d{2}):(\d{2})$/;
const HEX64_UPPER = /^[0-9A-F]{64}$/;
const ALNUM = /^[0-9A-Za-z]+$/;
/** Validaciones 3.1.3.1: no record may be dated before the Order came into force. */
const EARLIEST_ISSUE_DAY = 20241028;
/** Validaciones 3.1.3.17: ImporteTotal is not checked for these regimes. */
const NO_TOTAL_CHECK_REGIMES = new Set(['03', '05', '06', '08', '09']);
const TOTALS_MARGIN_CENTS = 1000;

function genInstant(s: string): number | null {
  const trimmed = s.trim();
  // test, not exec: the groups are not read, and their strings cost a dozen objects per record.
  if (!GEN_FORMAT.test(trimmed)) return null;
  const t = Date.parse(trimmed);
  return Number.isNaN(t) ? null : t;
}

/** Admissible errors on the amounts (Validaciones 3.1.3.16 and .17). */
function totalsWarnings(r: AltaRecord): number[] {
  const out: number[] = [];
  let cuotas = 0;
  let importe = 0;
  for (const l of r.lines) {
    const c = cents(l.cuota) + cents(l.recargo);
    cuotas += c;
    importe += cents(l.base) + c;
  }
  const skipImporte = r.lines.some((l) => l.claveRegimen !== undefined && NO_TOTAL_CHECK_REGIMES.has(l.claveRegimen));
  const it = cents(r.importeTotal);
  const ct = cents(r.cuotaTotal);
  if (!skipImporte && !(Math.abs(it - importe) <= TOTALS_MARGIN_CENTS)) out.push(2005);
  if (!(Math.abs(ct - cuotas) <= TOTALS_MARGIN_CENTS)) out.push(2006);
  return out;
}

interface Verdict {
  estado: EstadoRegistro;
  codigo?: number;
  descripcion?: string;
  duplicado?: RespuestaLinea['duplicado'];
  warnings: number[];
}

const reject = (codigo: number, extra: Partial<Verdict> = {}): Verdict => ({
  estado: 'Incorrecto',
  codigo,
  descripcion: describeError(codigo),
  warnings: [],
  ...extra,
});

function duplicadoOf(rec: LedgerRecord): NonNullable<RespuestaLinea['duplicado']> {
  const estado: EstadoRegistroDuplicado =
    rec.tipo === 'anulacion' ? 'Anulada' : rec.estado === 'AceptadoConErrores' ? 'AceptadoConErrores' : 'Correcta';
  const d: NonNullable<RespuestaLinea['duplicado']> = { idPeticion: rec.idPeticion ?? '', estado };
  // Keep the original warning so a till recovering from a crash learns the real verdict.
  if (rec.codigo !== null && rec.estado === 'AceptadoConErrores') {
    d.codigo = rec.codigo;
    if (rec.descripcion) d.descripcion = rec.descripcion.slice(0, 500);
  }
  return d;
}

/** The annex tables of admissible alta/anulación operations, against what AEAT holds for the key. */
function stateRule(r: ParsedRecord, held: LedgerRecord | null): Verdict | null {
  const reg = held?.registered ? held : null;
  if (r.tipo === 'alta') {
    const subs = r.subsanacion === 'S';
    const rp = r.rechazoPrevio ?? 'N';
    if (rp === 'X' && !subs) return reject(1153);
    if (rp === 'S' && !subs) return reject(1161);
    if (!subs || rp === 'X') {
      // Normal alta, or alta after a rejection: the key must not be held yet (ERROR 2).
      return reg ? reject(3000, { duplicado: duplicadoOf(reg) }) : null;
    }
    // Subsanación (RechazoPrevio N or S): the key must be held (ERROR 3); it replaces it (OK 4/5).
    return reg ? null : reject(3002);
  }
  if (r.sinRegistroPrevio === 'S') {
    // Anulación sin registro previo: nothing may be held for the key (ERROR 10).
    return reg ? reject(3000, { duplicado: duplicadoOf(reg) }) : null;
  }
  if (!reg) return reject(3002);
  if (reg.tipo === 'anulacion') return reject(3001);
  return null;
}

interface ChainEval {
  ok: boolean;
  problem: string | null;
  warnings: number[];
}

/**
 * Chain continuity per SIF: the obligado + IdSistemaInformatico + NumeroInstalacion
 * (AEAT developer FAQ 4 — each installation, or each independent billing inside one
 * product, is its own SIF; error 2007 speaks of "el obligado emisión y el sistema
 * informático actual"). The chain is the sequence of distinct records in arrival order — rejected ones included, because a SIF chains every record
 * it generates — and exact resends are not links. AEAT itself does not reject
 * on a broken chain (Validaciones only defines 2007/2008 and format checks), so
 * a break is recorded in the ledger and the record keeps its verdict.
 */
function evalChain(head: ChainHead | null, r: ParsedRecord): ChainEval {
  const warnings: number[] = [];
  if (r.prev === null) {
    if (head) {
      warnings.push(2007);
      return { ok: false, problem: `PrimerRegistro=S but ${head.length} record(s) already chained`, warnings };
    }
    return { ok: true, problem: null, warnings };
  }
  const p = r.prev;
  if (p.huella.length !== 64) warnings.push(2002);
  else if (!HEX64_UPPER.test(p.huella)) warnings.push(2003);
  if (p.huella === r.huella) warnings.push(2008);
  if (!head) return { ok: false, problem: 'RegistroAnterior given but no previous record received', warnings };
  const mismatches: string[] = [];
  if (p.emisor !== head.emisor) mismatches.push('IDEmisorFactura');
  if (p.numSerie !== head.numSerie) mismatches.push('NumSerieFactura');
  if (p.fecha !== head.fecha) mismatches.push('FechaExpedicionFactura');
  if (p.huella !== head.huella) mismatches.push('Huella');
  if (mismatches.length > 0) {
    return { ok: false, problem: `RegistroAnterior differs from last received (${head.key}): ${mismatches.join(', ')}`, warnings };
  }
  return { ok: true, problem: null, warnings };
}

function huellaOf(r: ParsedRecord): HuellaCheck {
  if (r.tipo === 'alta') {
    return checkHuellaAlta(
      {
        emisor: r.emisor,
        numSerie: r.numSerie,
        fecha: r.fecha,
        tipoFactura: r.tipoFactura,
        cuotaTotal: r.cuotaTotal,
        importeTotal: r.importeTotal,
        prevHuella: r.prev?.huella ?? '',
        fechaHoraHusoGenRegistro: r.fechaHoraHusoGenRegistro,
      },
      r.huella,
    );
  }
  return checkHuellaAnulacion(
    {
      emisor: r.emisor,
      numSerie: r.numSerie,
      fecha: r.fecha,
      prevHuella: r.prev?.huella ?? '',
      fechaHoraHusoGenRegistro: r.fechaHoraHusoGenRegistro,
    },
    r.huella,
  );
}

function evaluate(
  ctx: ProcessContext,
  todayDay: number,
  obligado: string,
  r: ParsedRecord,
  held: LedgerRecord | null,
  huella: HuellaCheck,
  chainWarnings: number[],
): Verdict {
  const injected = ctx.faults.takeReject();
  if (injected !== null) return reject(injected);

  // Syntactic checks on the record.
  const gen = genInstant(r.fechaHoraHusoGenRegistro);
  if (gen === null) return reject(1244);
  if (r.huella.length !== 64) return reject(1262);
  if (!ALNUM.test(r.huella)) return reject(1292);
  const issueDay = dayNumber(r.fecha);
  if (issueDay === null) return reject(1105);
  const underRequirement = ctx.requerimiento !== undefined;
  // Under requirement a business rule's code is admissible (Validaciones §4.3.2): noted, not refused.
  let business: number | null =
    r.emisor !== obligado ? 1108 : r.tipo !== 'alta' ? null : issueDay > todayDay ? 1112 : issueDay < EARLIEST_ISSUE_DAY ? 1152 : null;
  if (business !== null && !underRequirement) return reject(business);
  const rules = businessRules(r, obligado, todayDay, issueDay);
  if (rules.reject !== null) {
    if (!underRequirement || REQUERIMIENTO_REJECTS.has(rules.reject)) {
      return reject(rules.reject, rules.detail === undefined ? {} : { descripcion: rules.detail });
    }
    business ??= rules.reject;
  }

  // Under requirement every record is registered as a new one (Anexo III): only an exact resend is a
  // duplicate, and the annex's RechazoPrevio rules are business ones, admissible there.
  const state = underRequirement ? (held?.registered ? reject(3000, { duplicado: duplicadoOf(held) }) : null) : stateRule(r, held);
  if (state) return state;
  if (underRequirement && business === null && r.tipo === 'alta' && r.subsanacion !== 'S') {
    business = r.rechazoPrevio === 'X' ? 1153 : r.rechazoPrevio === 'S' ? 1161 : null;
  }

  const warnings = rules.warnings.length === 0 ? [...chainWarnings] : [...chainWarnings, ...rules.warnings];
  if (business !== null) warnings.unshift(business);
  if (huella === 'mismatch') warnings.push(2000);
  if (r.tipo === 'alta') {
    warnings.push(...totalsWarnings(r));
    if (ctx.config.checkRecipients && r.destinatarioNifs.some((n) => !ctx.census.isIdentified(n))) warnings.push(2001);
  }
  if (gen - ctx.now.getTime() > ctx.config.futureToleranceSeconds * 1000) warnings.push(2004);

  // A business code (under requirement) is not in the list: indexOf -1 puts it first.
  const sorted =
    warnings.length === 0 ? warnings : [...new Set(warnings)].sort((a, b) => ADMISSIBLE_PRIORITY.indexOf(a) - ADMISSIBLE_PRIORITY.indexOf(b));
  const first = sorted[0];
  if (first !== undefined) {
    const detail = first === 2004 ? `${ctx.config.futureToleranceSeconds} segundos.` : undefined;
    return { estado: 'AceptadoConErrores', codigo: first, descripcion: describeError(first, detail), warnings: sorted };
  }
  const forced = ctx.faults.takeAcceptWithErrors();
  if (forced !== null) {
    return { estado: 'AceptadoConErrores', codigo: forced, descripcion: describeError(forced), warnings: [forced] };
  }
  return { estado: 'Correcto', warnings: [] };
}

function lineOf(r: ParsedRecord, v: Verdict): RespuestaLinea {
  const l: RespuestaLinea = {
    emisor: r.emisor,
    numSerie: r.numSerie,
    fecha: r.fecha,
    tipoOperacion: r.tipo === 'alta' ? 'Alta' : 'Anulacion',
    estado: v.estado,
  };
  if (r.tipo === 'alta' && r.subsanacion !== undefined) l.subsanacion = r.subsanacion;
  if (r.rechazoPrevio !== undefined) l.rechazoPrevio = r.rechazoPrevio;
  if (r.tipo === 'anulacion' && r.sinRegistroPrevio !== undefined) l.sinRegistroPrevio = r.sinRegistroPrevio;
  if (r.refExterna !== undefined) l.refExterna = r.refExterna;
  if (v.codigo !== undefined) l.codigo = v.codigo;
  if (v.descripcion !== undefined) l.descripcion = v.descripcion;
  if (v.duplicado) l.duplicado = v.duplicado;
  return l;
}

/** Applies the records of one request to the ledger. Call inside a ledger transaction. */
export function processRecords(ctx: ProcessContext, req: ParsedRequest): ProcessResult {
  const obligado = req.cabecera.obligado.nif;
  const at = ctx.now.toISOString();
  const lineas: RespuestaLinea[] = [];
  let accepted = 0;
  let acceptedWithErrors = 0;
  let rejected = 0;
  const todayDay = madridDayNumber(ctx.now);
  // Heads live in memory for the request (one per SIF met) and are saved once at the end.
  const heads = new Map<string, ChainHead | null>();

  // The requirement service is another system that shares no records with VERI*FACTU (SWeb §6.6):
  // its records and chains live under keys of their own, one record per huella within a requirement.
  const reqPrefix = ctx.requerimiento === undefined ? null : `REQ|${ctx.requerimiento}|`;
  for (const r of req.records) {
    const sistema = reqPrefix === null ? sifOf(r.sistema) : `REQ|${sifOf(r.sistema)}`;
    if (!heads.has(sistema)) heads.set(sistema, ctx.ledger.chainHead(obligado, sistema));
    const head = heads.get(sistema) ?? null;
    const key = reqPrefix === null ? recordKey(r) : `${reqPrefix}${recordKey(r)}|${r.huella}`;
    const held = ctx.ledger.getRecord(key);
    // A key never seen cannot be a resend: skip the lookup for the common case.
    const retransmission = held !== null && ctx.ledger.alreadyReceived(key, r.huella);
    const huella = huellaOf(r);
    const chain: ChainEval = retransmission ? { ok: true, problem: null, warnings: [] } : evalChain(head, r);
    const v = evaluate(ctx, todayDay, obligado, r, held, huella, chain.warnings);

    ctx.ledger.writePresentation({
      submissionId: ctx.submissionId,
      line: r.index,
      obligado,
      key,
      tipo: r.tipo,
      subsanacion: r.tipo === 'alta' ? (r.subsanacion ?? null) : null,
      rechazoPrevio: r.rechazoPrevio ?? null,
      sinRegistroPrevio: r.tipo === 'anulacion' ? (r.sinRegistroPrevio ?? null) : null,
      huella: r.huella,
      huellaCheck: huella,
      prevKey: r.prev ? recordKey(r.prev) : null,
      prevHuella: r.prev?.huella ?? null,
      primerRegistro: r.prev === null,
      fechaHoraHusoGenRegistro: r.fechaHoraHusoGenRegistro,
      estado: v.estado,
      codigo: v.codigo ?? null,
      retransmission,
      chainOk: retransmission ? null : chain.ok,
      chainProblem: chain.problem,
      receivedAt: at,
    });
    if (!retransmission) {
      // Re-inserted so the chain advanced last is saved last (the ledger's "latest head").
      heads.delete(sistema);
      heads.set(sistema, {
        obligado,
        sistema,
        key,
        emisor: r.emisor,
        numSerie: r.numSerie,
        fecha: r.fecha,
        huella: r.huella,
        length: (head?.length ?? 0) + 1,
      });
    }

    const acceptedNow = v.estado !== 'Incorrecto';
    if (acceptedNow || !held?.registered) {
      // Accepted records become what AEAT holds; a rejection is stored only if nothing better is held.
      ctx.ledger.writeRecord({
        key,
        obligado,
        emisor: r.emisor,
        numSerie: r.numSerie,
        fecha: r.fecha,
        tipo: r.tipo,
        estado: v.estado,
        registered: acceptedNow,
        codigo: v.codigo ?? null,
        descripcion: v.descripcion ?? null,
        warnings: v.warnings,
        huella: r.huella,
        huellaCheck: huella,
        // Something was accepted, so this submission will carry a CSV.
        csv: acceptedNow ? ctx.csv : null,
        submissionId: ctx.submissionId,
        idPeticion: acceptedNow ? ctx.idPeticion : null,
        at,
      });
    } else {
      ctx.ledger.bumpReceived(key);
    }
    lineas.push(lineOf(r, v));
    if (v.estado === 'Correcto') accepted++;
    else if (v.estado === 'AceptadoConErrores') acceptedWithErrors++;
    else rejected++;
  }

  for (const head of heads.values()) if (head) ctx.ledger.saveChainHead(head);
  const estadoEnvio: EstadoEnvio =
    rejected === lineas.length ? 'Incorrecto' : accepted === lineas.length ? 'Correcto' : 'ParcialmenteCorrecto';
  return { lineas, estadoEnvio, accepted, acceptedWithErrors, rejected };
}
