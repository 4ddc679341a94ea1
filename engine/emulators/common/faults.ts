import { z } from 'zod';

// Fault injection shared by the emulators. Transport faults act on whole
// requests (every emulator); verdict overrides act on the next K records (AEAT
// and TicketBAI, whose codes are numbers and strings respectively).

/** delayMs and times of a PUT …/faults body; each emulator adds its `mode` and its own fields. */
export const transportPatchFields = {
  delayMs: z.number().int().min(0).max(600_000).optional(),
  /** How many requests the transport fault applies to; null = until changed. */
  times: z.number().int().min(1).nullable().optional(),
};

/** A verdict override of a PUT …/faults body: the next `count` records, with `codigo`. */
export function overrideSchema<C extends z.ZodType>(codigo: C) {
  return z.object({
    count: z.number().int().min(1).max(1_000_000),
    codigo,
  });
}

/** afterProcessing and the verdict overrides of a PUT …/faults body. */
export function recordPatchFields<O extends z.ZodType>(override: O) {
  return {
    /**
     * false (default): the fault hits before the request is processed, nothing is registered.
     * true: the records are registered first and only the answer is lost or broken.
     */
    afterProcessing: z.boolean().optional(),
    /** Next `count` records are rejected with `codigo` (stored as rejected). */
    rejectNext: override.nullable().optional(),
    /** Next `count` records that would be accepted are accepted with the error/warning `codigo`. */
    acceptWithErrorsNext: override.nullable().optional(),
  };
}

/** A fault patch naming a code the emulator does not answer (the control API answers 400). */
export class CodeError extends Error {}

export interface TransportFaultState<M extends string> {
  mode: M;
  delayMs: number;
  /** Remaining requests for the transport fault; null = unlimited. */
  times: number | null;
}

export interface TransportFaultPatch<M extends string> {
  mode?: M | undefined;
  delayMs?: number | undefined;
  times?: number | null | undefined;
}

/** Applies the transport part of a (parsed) patch; omitted fields keep their value. */
export function patchTransport<M extends string>(s: TransportFaultState<M>, p: TransportFaultPatch<M>): void {
  if (p.mode !== undefined) {
    s.mode = p.mode;
    // A new mode starts a fresh budget unless one is given.
    if (p.times === undefined) s.times = null;
  }
  if (p.delayMs !== undefined) s.delayMs = p.delayMs;
  if (p.times !== undefined) s.times = p.times;
}

/** Takes one use of the transport fault for this request, or null when service is normal. */
export function takeTransport<M extends string>(
  s: TransportFaultState<M | 'none'>,
): { mode: Exclude<M, 'none'>; delayMs: number } | null {
  if (s.mode === 'none') return null;
  const taken = { mode: s.mode as Exclude<M, 'none'>, delayMs: s.delayMs };
  if (s.times !== null) {
    s.times -= 1;
    if (s.times <= 0) {
      s.mode = 'none';
      s.times = null;
    }
  }
  return taken;
}

export interface Override<C> {
  count: number;
  codigo: C;
}

export interface RecordFaultState<M extends string, C> extends TransportFaultState<M> {
  afterProcessing: boolean;
  rejectNext: Override<C> | null;
  acceptWithErrorsNext: Override<C> | null;
}

export interface RecordFaultPatch<M extends string, C> extends TransportFaultPatch<M> {
  afterProcessing?: boolean | undefined;
  rejectNext?: Override<C> | null | undefined;
  acceptWithErrorsNext?: Override<C> | null | undefined;
}

export function defaultRecordFaults<M extends string, C>(): RecordFaultState<M | 'none', C> {
  return { mode: 'none', delayMs: 0, times: null, afterProcessing: false, rejectNext: null, acceptWithErrorsNext: null };
}

/** Takes one use of an override: its code, or null when none is set. */
function takeOverride<C>(s: { [K in 'rejectNext' | 'acceptWithErrorsNext']: Override<C> | null }, k: 'rejectNext' | 'acceptWithErrorsNext'): C | null {
  const r = s[k];
  if (!r) return null;
  r.count -= 1;
  if (r.count <= 0) s[k] = null;
  return r.codigo;
}

/** Transport faults plus verdict overrides of the emulators that answer per record. */
export class RecordFaults<M extends string, C> {
  protected s: RecordFaultState<M | 'none', C> = defaultRecordFaults<M, C>();

  get state(): Readonly<RecordFaultState<M | 'none', C>> {
    return {
      ...this.s,
      rejectNext: this.s.rejectNext ? { ...this.s.rejectNext } : null,
      acceptWithErrorsNext: this.s.acceptWithErrorsNext ? { ...this.s.acceptWithErrorsNext } : null,
    };
  }

  /** Applies a parsed patch; omitted fields keep their value. */
  protected apply(p: RecordFaultPatch<M | 'none', C>): RecordFaultState<M | 'none', C> {
    patchTransport(this.s, p);
    if (p.afterProcessing !== undefined) this.s.afterProcessing = p.afterProcessing;
    if (p.rejectNext !== undefined) this.s.rejectNext = p.rejectNext ? { ...p.rejectNext } : null;
    if (p.acceptWithErrorsNext !== undefined) {
      this.s.acceptWithErrorsNext = p.acceptWithErrorsNext ? { ...p.acceptWithErrorsNext } : null;
    }
    return this.state;
  }

  reset(): void {
    this.s = defaultRecordFaults<M, C>();
  }

  /** Takes one use of the transport fault for this request, or null when service is normal. */
  takeTransport(): { mode: Exclude<M, 'none'>; delayMs: number; afterProcessing: boolean } | null {
    const t = takeTransport<M>(this.s);
    return t && { ...t, afterProcessing: this.s.afterProcessing };
  }

  /** A verdict override is waiting for the next records (they take uses of it as they are judged). */
  get overridesArmed(): boolean {
    return this.s.rejectNext !== null || this.s.acceptWithErrorsNext !== null;
  }

  takeReject(): C | null {
    return takeOverride(this.s, 'rejectNext');
  }

  takeAcceptWithErrors(): C | null {
    return takeOverride(this.s, 'acceptWithErrorsNext');
  }
}
