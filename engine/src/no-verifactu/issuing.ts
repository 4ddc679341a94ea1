// What VeriFactu issuing asks of the «NO VERI*FACTU» mode, inside its transaction: the mode of the
// issuer's installation, the SIF block its records carry, and the signature. A record of an
// installation in this mode is signed before it is stored (never stored unsigned) and no filing
// job is queued for it: it is kept, and sent only on the AEAT's requirement. A new invoice's record
// may be signed ahead, off the issuing thread (firmarAntes); issuing stores that signature only if
// the record it builds in its transaction is byte for byte the one signed, and signs there otherwise.
import type { Entorno } from '../../../src-shared/api/common';
import type { Clock } from '../platform/clock';
import type { SistemaInformatico } from '../regimes/verifactu/record/registro';
import { firmarRegistro, type IdentidadFirma } from './firma';
import type { ModoSif, ModosSif } from './modo';

/** Signs records off the issuing thread (the worker pool, pure-work/). */
export type FirmaFuera = (identidad: IdentidadFirma, signingTime: Date, xmls: string[]) => Promise<string[]>;

export class FirmaNoVerifactu {
  private readonly sistemas = new WeakMap<SistemaInformatico, SistemaInformatico>();

  constructor(
    private readonly modos: ModosSif,
    private readonly identidad: (entorno: Entorno) => IdentidadFirma,
    private readonly clock: Clock,
    /** Absent: records signed ahead are signed on the calling thread. */
    private readonly fuera?: FirmaFuera | undefined,
  ) {}

  modo(entorno: Entorno, nif: string): ModoSif {
    return this.modos.modo(entorno, nif);
  }

  /** The SIF block of a record made in this mode: the system is not «solo VERI*FACTU». */
  sistema(base: SistemaInformatico): SistemaInformatico {
    let s = this.sistemas.get(base);
    if (s === undefined) {
      s = { ...base, tipoUsoPosibleSoloVerifactu: 'N' };
      this.sistemas.set(base, s);
    }
    return s;
  }

  /** The record XML with its XAdES signature. */
  firmar(entorno: Entorno, xml: string): string {
    return firmarRegistro(xml, this.identidad(entorno), this.clock.now());
  }

  /**
   * Records signed ahead of their transaction, SigningTime their generation time. Throws (503)
   * like `firmar` when the environment has no signing identity: nothing is stored then.
   */
  async firmarAntes(entorno: Entorno, xmls: string[], generadoEn: Date): Promise<string[]> {
    const identidad = this.identidad(entorno);
    if (this.fuera) return this.fuera(identidad, generadoEn, xmls);
    return xmls.map((xml) => firmarRegistro(xml, identidad, generadoEn));
  }
}
