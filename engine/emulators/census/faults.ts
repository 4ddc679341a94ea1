import { z } from 'zod';
import type { TransportFaultState } from '../common/faults';
import { patchTransport, takeTransport, transportPatchFields } from '../common/faults';

// Fault injection of the census service: transport faults act on whole requests; `omit` and
// `noProcesado` act on the entries of the answer.

export const CensusTransportMode = z.enum(['none', 'down', 'slow', 'http500', 'serverFault', 'malformed', 'timeout']);
export type CensusTransportMode = z.infer<typeof CensusTransportMode>;

const NifList = z.array(z.string().trim().toUpperCase().min(1).max(20)).max(10_000);

/** PUT /__control/census/faults body; omitted fields keep their value. */
export const CensusFaultsPatch = z
  .strictObject({
    /**
     * none: normal service.
     * down: the socket is reset as soon as the request arrives (an unreachable host).
     * slow: the answer comes after delayMs.
     * http500: HTTP 500 with an HTML body (a broken proxy).
     * serverFault: SOAP Fault env:Server.
     * malformed: HTTP 200 with truncated XML.
     * timeout: the request is accepted and never answered.
     */
    mode: CensusTransportMode.optional(),
    ...transportPatchFields,
    /** These NIFs are left out of every answer (the census "omits" them). */
    omit: NifList.optional(),
    /** These NIFs are answered `NO PROCESADO`. */
    noProcesado: NifList.optional(),
  });
export type CensusFaultsPatch = z.infer<typeof CensusFaultsPatch>;

export interface CensusFaultState extends TransportFaultState<CensusTransportMode> {
  omit: string[];
  noProcesado: string[];
}

export const defaultCensusFaults = (): CensusFaultState => ({ mode: 'none', delayMs: 0, times: null, omit: [], noProcesado: [] });

export class CensusFaults {
  private s: CensusFaultState = defaultCensusFaults();

  get state(): CensusFaultState {
    return { ...this.s, omit: [...this.s.omit], noProcesado: [...this.s.noProcesado] };
  }

  set(patch: CensusFaultsPatch): CensusFaultState {
    const p = CensusFaultsPatch.parse(patch);
    patchTransport(this.s, p);
    if (p.omit !== undefined) this.s.omit = [...p.omit];
    if (p.noProcesado !== undefined) this.s.noProcesado = [...p.noProcesado];
    return this.state;
  }

  reset(): void {
    this.s = defaultCensusFaults();
  }

  /** Takes one use of the transport fault, or null when the service is normal. */
  takeTransport(): { mode: Exclude<CensusTransportMode, 'none'>; delayMs: number } | null {
    return takeTransport<CensusTransportMode>(this.s);
  }

  omits(nif: string): boolean {
    return this.s.omit.includes(nif.trim().toUpperCase());
  }

  unprocessed(nif: string): boolean {
    return this.s.noProcesado.includes(nif.trim().toUpperCase());
  }
}
