// What VeriFactu issuing asks of the «NO VERI*FACTU» mode, inside its transaction: the mode of the
// issuer's installation, the SIF block its records carry, and the signature. A record of an
// installation in this mode is signed before it is stored (never stored unsigned) and no filing
// job is queued for it: it is kept, and sent only on the AEAT's requirement.
import type { Entorno } from '../../../src-shared/api/common';
import type { Clock } from '../platform/clock';
import type { SistemaInformatico } from '../regimes/verifactu/record/registro';
import { firmarRegistro, type IdentidadFirma } from './firma';
import type { ModoSif, ModosSif } from './modo';

export class FirmaNoVerifactu {
  private readonly sistemas = new WeakMap<SistemaInformatico, SistemaInformatico>();

  constructor(
    private readonly modos: ModosSif,
    private readonly identidad: (entorno: Entorno) => IdentidadFirma,
    private readonly clock: Clock,
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
}
