import { z } from 'zod';

// Fault injection, same shape as the AEAT emulator's (engine/emulators/aeat/faults.ts):
// transport faults act on whole HTTP requests; verdict overrides act on the next
// K records (one invoice per request in Araba/Gipuzkoa, each record of an LROE
// batch in Bizkaia). Codes are strings: "005" for Araba/Gipuzkoa (a number is
// padded to 3 digits), "B4_2000003" for Bizkaia.

export const TbaiTransportMode = z.enum(['none', 'down', 'slow', 'http500', 'malformed', 'timeout']);
export type TbaiTransportMode = z.infer<typeof TbaiTransportMode>;

const Codigo = z.union([
  z.number().int().min(1).max(999).transform((n) => String(n).padStart(3, '0')),
  z.string().trim().regex(/^[A-Z0-9_]{3,20}$/, 'codigo: 3-20 characters A-Z, 0-9, _'),
]);

const Override = z.object({
  count: z.number().int().min(1).max(1_000_000),
  codigo: Codigo,
});

/** PUT /__control/tbai/<provincia>/faults body. Every field is optional; omitted fields keep their value. */
export const TbaiFaultsPatch = z
  .object({
    /**
     * none: normal service.
     * down: the socket is reset as soon as the request arrives (an unreachable host).
     * slow: the answer is delayed delayMs.
     * http500: HTTP 500 with an HTML body (a broken proxy, not a service answer).
     * malformed: HTTP 200 with the answer cut in the middle (for Bizkaia, the gzipped
     *   body holds truncated XML).
     * timeout: the request is accepted and never answered.
     */
    mode: TbaiTransportMode.optional(),
    delayMs: z.number().int().min(0).max(600_000).optional(),
    /** How many requests the transport fault applies to; null = until changed. */
    times: z.number().int().min(1).nullable().optional(),
    /**
     * false (default): the fault hits before the request is processed, nothing is registered.
     * true: the invoices are registered first and only the answer is lost or broken.
     */
    afterProcessing: z.boolean().optional(),
    /** Next `count` records are rejected with `codigo` (01 Rechazado / Incorrecto). */
    rejectNext: Override.nullable().optional(),
    /** Next `count` records that are accepted carry the warning `codigo` (AceptadoConErrores in LROE). */
    acceptWithErrorsNext: Override.nullable().optional(),
    /** Alias of acceptWithErrorsNext. */
    warningNext: Override.nullable().optional(),
  })
  .strict();
export type TbaiFaultsPatch = z.input<typeof TbaiFaultsPatch>;

export interface TbaiFaultState {
  mode: TbaiTransportMode;
  delayMs: number;
  times: number | null;
  afterProcessing: boolean;
  rejectNext: { count: number; codigo: string } | null;
  acceptWithErrorsNext: { count: number; codigo: string } | null;
}

export function defaultTbaiFaults(): TbaiFaultState {
  return { mode: 'none', delayMs: 0, times: null, afterProcessing: false, rejectNext: null, acceptWithErrorsNext: null };
}

export class TbaiFaults {
  private s: TbaiFaultState = defaultTbaiFaults();

  /** @param codePattern codes this province answers (checked on set). */
  constructor(private readonly codePattern: RegExp = /^[A-Z0-9_]{3,20}$/) {}

  get state(): Readonly<TbaiFaultState> {
    return {
      ...this.s,
      rejectNext: this.s.rejectNext ? { ...this.s.rejectNext } : null,
      acceptWithErrorsNext: this.s.acceptWithErrorsNext ? { ...this.s.acceptWithErrorsNext } : null,
    };
  }

  /** Throws a ZodError (or Error for a code of the wrong province) on a bad patch. */
  set(patch: TbaiFaultsPatch): TbaiFaultState {
    const p = TbaiFaultsPatch.parse(patch);
    for (const o of [p.rejectNext, p.acceptWithErrorsNext, p.warningNext]) {
      if (o && !this.codePattern.test(o.codigo)) throw new CodeError(`codigo ${o.codigo} does not match ${this.codePattern}`);
    }
    if (p.mode !== undefined) {
      this.s.mode = p.mode;
      if (p.times === undefined) this.s.times = null;
    }
    if (p.delayMs !== undefined) this.s.delayMs = p.delayMs;
    if (p.times !== undefined) this.s.times = p.times;
    if (p.afterProcessing !== undefined) this.s.afterProcessing = p.afterProcessing;
    if (p.rejectNext !== undefined) this.s.rejectNext = p.rejectNext ? { ...p.rejectNext } : null;
    const warn = p.acceptWithErrorsNext !== undefined ? p.acceptWithErrorsNext : p.warningNext;
    if (warn !== undefined) this.s.acceptWithErrorsNext = warn ? { ...warn } : null;
    return this.state;
  }

  reset(): void {
    this.s = defaultTbaiFaults();
  }

  takeTransport(): { mode: Exclude<TbaiTransportMode, 'none'>; delayMs: number; afterProcessing: boolean } | null {
    if (this.s.mode === 'none') return null;
    const taken = { mode: this.s.mode, delayMs: this.s.delayMs, afterProcessing: this.s.afterProcessing };
    if (this.s.times !== null) {
      this.s.times -= 1;
      if (this.s.times <= 0) {
        this.s.mode = 'none';
        this.s.times = null;
      }
    }
    return taken;
  }

  takeReject(): string | null {
    const r = this.s.rejectNext;
    if (!r) return null;
    r.count -= 1;
    if (r.count <= 0) this.s.rejectNext = null;
    return r.codigo;
  }

  takeWarning(): string | null {
    const r = this.s.acceptWithErrorsNext;
    if (!r) return null;
    r.count -= 1;
    if (r.count <= 0) this.s.acceptWithErrorsNext = null;
    return r.codigo;
  }
}

export class CodeError extends Error {}
