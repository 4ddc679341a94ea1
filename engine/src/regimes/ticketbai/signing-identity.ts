import { readFileSync } from 'node:fs';
import type { Entorno } from '../../../../src-shared/api/common';
import type { Database } from '../../db/database';
import { installValue } from '../../db/settings';
import { environmentNotAvailable } from '../../core/errors';
import type { Clock } from '../../platform/clock';
import type { TbaiCertificateConfig } from './config';
import { generateTestCertificate, loadPkcs12 } from './certificados';
import type { SigningIdentity } from './service';

/**
 * Who signs TicketBAI invoices. TEST: a self-signed RSA-2048 certificate generated once per
 * install and kept in the database. LIVE: the configured PKCS#12; without one, LIVE TicketBAI
 * answers 503 ENVIRONMENT_NOT_AVAILABLE rather than sign with a certificate no treasury accepts.
 */
export function tbaiSigner(
  db: Database,
  clock: Clock,
  productor: { nif: string; nombre: string },
  config: TbaiCertificateConfig,
): (entorno: Entorno) => SigningIdentity {
  let test: SigningIdentity | undefined;
  let live: SigningIdentity | undefined;
  return (entorno) => {
    if (entorno === 'test') {
      test ??= JSON.parse(
        installValue(db, 'tbaiTestCertificate', () => {
          const cert = generateTestCertificate({ nif: productor.nif, nombre: productor.nombre, now: clock.now() });
          return JSON.stringify({ privateKeyPem: cert.privateKeyPem, certificatePem: cert.certificatePem });
        }),
      ) as SigningIdentity;
      return test;
    }
    if (!config.live) {
      throw environmentNotAvailable('TicketBAI en LIVE necesita un certificado de firma configurado');
    }
    if (!live) {
      const loaded = loadPkcs12(readFileSync(config.live.pkcs12Path), config.live.password);
      live = { privateKeyPem: loaded.privateKeyPem, certificatePem: loaded.certificatePem, chainPem: loaded.chainPem };
    }
    return live;
  };
}
