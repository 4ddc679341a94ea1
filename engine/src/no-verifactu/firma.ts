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
import { verificarFirma } from '../verification/firma-registro';
import type { IdentidadFirma } from './firma-xades';

export { firmarRegistro, POLITICA_FIRMA_AGE, type IdentidadFirma } from './firma-xades';

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

