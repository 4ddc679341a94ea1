// Signature policies (XAdES-EPES SignaturePolicyIdentifier) per treasury: the policy identifier
// (SigPolicyId/Identifier and SPURI) and the SHA-256 digest of the policy document (SigPolicyHash).
// Configuration data, not code: treasuries republish their policies, so the engine takes the
// policy as an argument and these are only the defaults (FACTS.md, "Signature"); the engine's
// configuration overrides them per treasury (EngineConfig.ticketbai.politicasFirma).
import type { Provincia } from '../../../../src-shared/api/ticketbai';

export interface PoliticaFirma {
  /** SigPolicyId/Identifier, also written as the SPURI qualifier. */
  identificador: string;
  /** Base64 SHA-256 of the policy document (SigPolicyHash/DigestValue). */
  digestSha256: string;
  /**
   * The SigPolicyHash DigestMethod when the policy fixes another than SHA-256: the AGE policy the
   * AEAT prescribes for «NO VERI*FACTU» records publishes a SHA-1 digest (then `digestSha256`
   * holds that digest).
   */
  algoritmoDigest?: string | undefined;
  /** The SPURI qualifier when it is not the identifier (the AGE policy: its PDF's URL). */
  spuri?: string | undefined;
}

export const POLITICAS_FIRMA: Readonly<Record<Provincia, PoliticaFirma>> = {
  bizkaia: {
    identificador:
      'https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf',
    digestSha256: 'Quzn98x3PMbSHwbUzaj5f5KOpiH0u8bvmwbbbNkO9Es=',
  },
  // The official signed Gipuzkoa examples (1.2.2) use another pair:
  // https://www.gipuzkoa.eus/ticketbai/sinadura with vSe1CH7eAFVkGN0X2Y7Nl9XGUoBnziDA5BGUSsyt8mg=.
  gipuzkoa: {
    identificador: 'https://www.gipuzkoa.eus/TicketBAI/signature',
    digestSha256: '6NrKAm60o7u62FUQwzZew24ra2ve9PRQYwC21AM6In0=',
  },
  // UNCONFIRMED digest: Araba has published several policy documents under the same URL and no
  // official source could be checked. Public implementations disagree: Odoo (l10n_es_edi_tbai) and
  // fiskaltrust use the value below; OCA and Barnetik use 4Vk3uExj7tGn9DyUCPDsV9HRmK6KZfYdRiW3StOjcQA=,
  // others iOgvkX7/yHIDRRiPy/LYQ0UUn7QV8/11D1BFbs8yMuQ=. Confirm against Araba's test service.
  araba: {
    identificador: 'https://ticketbai.araba.eus/tbai/sinadura/',
    digestSha256: 'd69VEBc4ED4QbwnDtCA2JESgJiw+rwzfutcaSl5gYvM=',
  },
};
