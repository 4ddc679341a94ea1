// What a regime's local rules answer: errors (400 naming `campo`) and avisos; both regimes share it.
export interface ErrorRegla {
  /** API JSON path of the offending field, e.g. `detalleDesglose[0].cuotaRepercutida`. */
  campo: string;
  message: string;
  /** AEAT error code (or section of the validations document when AEAT publishes no code). */
  codigo: string;
}

export interface ResultadoReglas {
  errors: ErrorRegla[];
  avisos: string[];
}
