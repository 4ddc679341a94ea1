/**
 * What an issuer client has beyond the `issuers` row (which issuing reads): contact, addresses,
 * the census verdict, the portal switch, deletion and the seat exemption. One row per issuer.
 */
export interface IssuerDetailsTable {
  issuerId: string;
  email: string | null;
  /** `autonomo` or `empresa`; null for issuers made before the client lifecycle (admin, demo seed). */
  tipoUsuario: 'autonomo' | 'empresa' | null;
  /** JSON of `{calle, numero, codigoPostal, ciudad, provincia}`. */
  direccion: string | null;
  /** JSON of `{nombre, nif, direccion?}`. */
  representante: string | null;
  epigrafeIAE: string | null;
  portalHabilitado: number;
  /** JSON of the census verdict `{estado, nombreCenso, validadoEn, resultadoAeat?}`. */
  validacionCensal: string | null;
  /** When the issuer was deleted in the panel (the 30-day restoration window starts here). */
  eliminadoEn: string | null;
  /** 1 for an own company created before 10 September 2026: it never takes a plan seat. */
  exentoPlaza: number;
}

/** Local cache of census verdicts: repeated and offline checks are answered from here. */
export interface CensusVerdictsTable {
  nif: string;
  /** Normalized queried name; '' for a legal person (the census ignores the name then). */
  nombreClave: string;
  estado: string;
  resultadoAeat: string;
  /** The `Nombre` the census answered (official name or echo). */
  nombreRespuesta: string;
  /** Time of the census query that produced the verdict. */
  validadoEn: string;
}

export type EstadoDocumentoRepresentacion = 'en_curso' | 'firmado' | 'cancelado' | 'sustituido';

/** Representation documents: generated (a signature in progress), then signed or cancelled. */
export interface RepresentationDocumentsTable {
  id: string;
  issuerId: string;
  estado: EstadoDocumentoRepresentacion;
  /** The PDF as generated (the one to sign). */
  pdf: Uint8Array;
  /** SHA-256 hex of `pdf`. */
  sha256: string;
  generadoEn: string;
  pdfFirmado: Uint8Array | null;
  firmadoEn: string | null;
  /** `firmar` (signed here with a PKCS#12) or `verificar` (signed elsewhere and uploaded). */
  metodoFirma: string | null;
  /** JSON `{nif, nombre, numeroSerie, emisor, validoHasta}` of the signing certificate. */
  firmante: string | null;
  finalizadoEn: string | null;
}

export interface ClientsTables {
  issuer_details: IssuerDetailsTable;
  census_verdicts: CensusVerdictsTable;
  representation_documents: RepresentationDocumentsTable;
}
