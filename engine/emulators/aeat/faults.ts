import { z } from 'zod';

// Fault injection. Transport faults act on whole SOAP requests; verdict
// overrides act on the next K records.

export const TransportMode = z.enum(['none', 'down', 'slow', 'http500', 'serverFault', 'malformed', 'timeout']);
export type TransportMode = z.infer<typeof TransportMode>;

const Override = z.object({
  count: z.number().int().min(1).max(1_000_000),
  codigo: z.number().int().min(1).max(99_999),
});

/** PUT /__control/faults body. Every field is optional; omitted fields keep their value. */
export const FaultsPatch = z
  .object({
    /**
     * none: normal service.
     * down: the socket is reset as soon as the request arrives (looks like an unreachable host).
     * slow: the answer is delayed delayMs.
     * http500: HTTP 500 with an HTML body (a broken proxy, not a SOAP answer).
     * serverFault: SOAP Fault with faultcode env:Server (the client should resend).
     * malformed: HTTP 200 with truncated XML.
     * timeout: the request is accepted and never answered.
     */
    mode: TransportMode.optional(),
    delayMs: z.number().int().min(0).max(600_000).optional(),
    /** How many SOAP requests the transport fault applies to; null = until changed. */
    times: z.number().int().min(1).nullable().optional(),
    /**
     * false (default): the fault hits before the request is processed, nothing is registered.
     * true: the records are registered first and only the answer is lost or broken — the
     * "AEAT got it but the till never heard back" case that forces reconciliation.
     */
    afterProcessing: z.boolean().optional(),
    /** Next `count` records answered Incorrecto with `codigo` (stored as rejected). */
    rejectNext: Override.nullable().optional(),
    /** Next `count` records that would be Correcto are answered AceptadoConErrores with `codigo`. */
    acceptWithErrorsNext: Override.nullable().optional(),
  })
  .strict();
export type FaultsPatch = z.infer<typeof FaultsPatch>;

export interface FaultState {
  mode: TransportMode;
  delayMs: number;
  /** Remaining requests for the transport fault; null = unlimited. */
  times: number | null;
  afterProcessing: boolean;
  rejectNext: { count: number; codigo: number } | null;
  acceptWithErrorsNext: { count: number; codigo: number } | null;
}

export function defaultFaults(): FaultState {
  return { mode: 'none', delayMs: 0, times: null, afterProcessing: false, rejectNext: null, acceptWithErrorsNext: null };
}

export class Faults {
  private s: FaultState = defaultFaults();

  get state(): Readonly<FaultState> {
    return { ...this.s };
  }

  set(patch: FaultsPatch): FaultState {
    const p = FaultsPatch.parse(patch);
    if (p.mode !== undefined) {
      this.s.mode = p.mode;
      // A new mode starts a fresh budget unless one is given.
      if (p.times === undefined) this.s.times = null;
    }
    if (p.delayMs !== undefined) this.s.delayMs = p.delayMs;
    if (p.times !== undefined) this.s.times = p.times;
    if (p.afterProcessing !== undefined) this.s.afterProcessing = p.afterProcessing;
    if (p.rejectNext !== undefined) this.s.rejectNext = p.rejectNext ? { ...p.rejectNext } : null;
    if (p.acceptWithErrorsNext !== undefined) {
      this.s.acceptWithErrorsNext = p.acceptWithErrorsNext ? { ...p.acceptWithErrorsNext } : null;
    }
    return this.state;
  }

  reset(): void {
    this.s = defaultFaults();
  }

  /** Takes one use of the transport fault for this request, or null when service is normal. */
  takeTransport(): { mode: Exclude<TransportMode, 'none'>; delayMs: number; afterProcessing: boolean } | null {
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

  takeReject(): number | null {
    const r = this.s.rejectNext;
    if (!r) return null;
    r.count -= 1;
    if (r.count <= 0) this.s.rejectNext = null;
    return r.codigo;
  }

  takeAcceptWithErrors(): number | null {
    const r = this.s.acceptWithErrorsNext;
    if (!r) return null;
    r.count -= 1;
    if (r.count <= 0) this.s.acceptWithErrorsNext = null;
    return r.codigo;
  }
}
