import { z } from 'zod';
import type { RecordFaultState } from '../common/faults';
import { CodeError, RecordFaults, defaultRecordFaults, overrideSchema, recordPatchFields, transportPatchFields } from '../common/faults';

// Fault injection (shared/faults.ts), as in the AEAT emulator:
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
const Override = overrideSchema(Codigo);

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
    ...transportPatchFields,
    /** rejectNext: 01 Rechazado / Incorrecto; acceptWithErrorsNext: a warning (AceptadoConErrores in LROE). */
    ...recordPatchFields(Override),
    /** Alias of acceptWithErrorsNext. */
    warningNext: Override.nullable().optional(),
  })
  .strict();
export type TbaiFaultsPatch = z.input<typeof TbaiFaultsPatch>;

export type TbaiFaultState = RecordFaultState<TbaiTransportMode, string>;

export function defaultTbaiFaults(): TbaiFaultState {
  return defaultRecordFaults<TbaiTransportMode, string>();
}

export class TbaiFaults extends RecordFaults<TbaiTransportMode, string> {
  /** @param codePattern codes this province answers (checked on set). */
  constructor(private readonly codePattern: RegExp = /^[A-Z0-9_]{3,20}$/) {
    super();
  }

  /** Throws a ZodError (or Error for a code of the wrong province) on a bad patch. */
  set(patch: TbaiFaultsPatch): TbaiFaultState {
    const { warningNext, ...p } = TbaiFaultsPatch.parse(patch);
    for (const o of [p.rejectNext, p.acceptWithErrorsNext, warningNext]) {
      if (o && !this.codePattern.test(o.codigo)) throw new CodeError(`codigo ${o.codigo} does not match ${this.codePattern}`);
    }
    return this.apply({ ...p, acceptWithErrorsNext: p.acceptWithErrorsNext !== undefined ? p.acceptWithErrorsNext : warningNext });
  }

  takeWarning(): string | null {
    return this.takeAcceptWithErrors();
  }
}

export { CodeError };
