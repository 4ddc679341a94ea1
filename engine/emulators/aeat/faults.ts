import { z } from 'zod';
import type { RecordFaultState } from '../common/faults';
import { RecordFaults, defaultRecordFaults, overrideSchema, recordPatchFields, transportPatchFields } from '../common/faults';

// Fault injection (shared/faults.ts). Transport faults act on whole SOAP
// requests; verdict overrides act on the next K records. With afterProcessing the
// records are registered first and only the answer is lost or broken — the
// "AEAT got it but the till never heard back" case that forces reconciliation.

export const TransportMode = z.enum(['none', 'down', 'slow', 'http500', 'serverFault', 'malformed', 'timeout']);
export type TransportMode = z.infer<typeof TransportMode>;

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
    ...transportPatchFields,
    /** rejectNext: answered Incorrecto; acceptWithErrorsNext: Correcto becomes AceptadoConErrores. */
    ...recordPatchFields(overrideSchema(z.number().int().min(1).max(99_999))),
  })
  .strict();
export type FaultsPatch = z.infer<typeof FaultsPatch>;

export type FaultState = RecordFaultState<TransportMode, number>;

export function defaultFaults(): FaultState {
  return defaultRecordFaults<TransportMode, number>();
}

export class Faults extends RecordFaults<TransportMode, number> {
  set(patch: FaultsPatch): FaultState {
    return this.apply(FaultsPatch.parse(patch));
  }
}
