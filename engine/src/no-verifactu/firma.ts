// The electronic signature of «NO VERI*FACTU» billing and event records: AEAT, "Especificaciones
// técnicas para la generación de la firma electrónica de los registros de facturación" v0.1.5
// (Orden HAC/1177/2024 art. 14): XAdES-EPES enveloped over the RegistroAlta / RegistroAnulacion /
// RegistroEvento node, the AGE signature policy (its SHA-1 digest, as published), RSA with SHA-256.
// The Signature goes in RegistroAlta/Signature, RegistroAnulacion/Signature and
// RegistroEvento/Evento/Signature. The XAdES writer is TicketBAI's (same profile, another policy).
import type { Entorno } from '../../../src-shared/api/common';
import type { Database } from '../db/database';
import { installValue } from '../db/settings';
import { environmentNotAvailable } from '../core/errors';
import type { InstallTestCa } from '../representation/test-ca';
import { loadPkcs12 } from '../regimes/ticketbai/certificados';
import type { PoliticaFirma } from '../regimes/ticketbai/politicas';
import { signTicketBai } from '../regimes/ticketbai/record/xades';
import { FIN_EVENTO, verificarFirma } from '../verification/firma-registro';

/** The AGE policy the AEAT's signature document names (section 4). */
export const POLITICA_FIRMA_AGE: PoliticaFirma = {
  identificador: 'urn:oid:2.16.724.1.3.1.1.2.1.9',
  digestSha256: 'G7roucf600+f03r/o0bAOQ6WAs0=',
  algoritmoDigest: 'http://www.w3.org/2000/09/xmldsig#sha1',
  spuri: 'https://sede.administracion.gob.es/politica_de_firma_anexo_1.pdf',
};

export interface IdentidadFirma {
  privateKeyPem: string;
  certificatePem: string;
  chainPem?: readonly string[] | undefined;
}

/** A signer of records: the XML of the record, signed. */
export type FirmanteRegistros = (entorno: Entorno, xml: string) => string;

const TEST_P12_PASSWORD = 'no-verifactu-test';

/**
 * Who signs. TEST: a certificate of the install's own TEST CA for the producer's NIF, issued once
 * and kept in `settings` (its key never leaves the database). LIVE: the PKCS#12 configured for
 * mutual TLS with the AEAT (POS_AEAT_P12), whose holder is the issuer or its representative, as
 * the signature document requires; without one, LIVE «NO VERI*FACTU» issuing answers 503.
 */
export function identidadesFirma(
  db: Database,
  testCa: InstallTestCa,
  productor: { nif: string; nombre: string },
  live: { pfx: Buffer; passphrase?: string | undefined } | undefined,
): (entorno: Entorno) => IdentidadFirma {
  let test: IdentidadFirma | undefined;
  let vivo: IdentidadFirma | undefined;
  return (entorno) => {
    if (entorno === 'test') {
      test ??= JSON.parse(
        installValue(db, 'noVerifactuTestCertificate', () => {
          const issued = testCa.issue({ nif: productor.nif, nombre: productor.nombre, password: TEST_P12_PASSWORD });
          const loaded = loadPkcs12(issued.pkcs12, TEST_P12_PASSWORD);
          return JSON.stringify({ privateKeyPem: loaded.privateKeyPem, certificatePem: loaded.certificatePem, chainPem: loaded.chainPem });
        }),
      ) as IdentidadFirma;
      return test;
    }
    if (live === undefined) {
      throw environmentNotAvailable('NO VERI*FACTU en LIVE necesita un certificado de firma configurado (POS_AEAT_P12)');
    }
    if (vivo === undefined) {
      const loaded = loadPkcs12(live.pfx, live.passphrase ?? '');
      vivo = { privateKeyPem: loaded.privateKeyPem, certificatePem: loaded.certificatePem, chainPem: loaded.chainPem };
    }
    return vivo;
  };
}

// The verifier lives with the chain verification, which reads it too (verification/firma-registro.ts).
export { verificarFirma };

/**
 * Signs a billing record (the Signature as the root's last child) or an event record (the
 * Signature as Evento's last child: the reference is URI="" with the enveloped transform, so
 * where it sits inside the document does not change what is signed).
 */
export function firmarRegistro(xml: string, identidad: IdentidadFirma, signingTime: Date): string {
  const opts = {
    privateKeyPem: identidad.privateKeyPem,
    certificatePem: identidad.certificatePem,
    chainPem: identidad.chainPem,
    policy: POLITICA_FIRMA_AGE,
    signingTime,
  };
  if (!xml.includes(FIN_EVENTO)) {
    // Billing records sign on the issuing path: their canonical form is digested as text (no DOM,
    // ≈ 3× cheaper). The record builders write C14N but for three text entities, which C14N
    // writes otherwise; the stored document is that canonical form (the same infoset). Anything
    // else not canonical makes signTicketBai refuse, and the general path signs it.
    const canonica = xml.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#13;/g, '&#xD;');
    try {
      return signTicketBai(canonica, { ...opts, canonicalInput: true }).signedXml;
    } catch {
      return signTicketBai(xml, opts).signedXml;
    }
  }
  const { signedXml } = signTicketBai(xml, opts);
  const inicio = signedXml.indexOf('<ds:Signature ');
  const fin = signedXml.lastIndexOf('</ds:Signature>') + '</ds:Signature>'.length;
  const firma = signedXml.slice(inicio, fin);
  const sinFirma = signedXml.slice(0, inicio) + signedXml.slice(fin);
  const corte = sinFirma.lastIndexOf(FIN_EVENTO);
  return sinFirma.slice(0, corte) + firma + sinFirma.slice(corte);
}
