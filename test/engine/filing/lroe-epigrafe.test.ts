// Bizkaia's LROE model 140 (natural persons) carries the issuer's IAE heading per invoice. The
// filing workers read it from the issuer's client details: before, they asked the `issuers` row,
// which has no such column, so the query always failed and a self-employed issuer's LROE could not
// be built on the filing thread.
import { describe, expect, it } from 'vitest';
import { epigrafeIaeOf } from '../../../engine/src/clients/store';
import { anAutonomo, crear, makeClientsEngine } from '../clients/helpers';

describe('LROE model 140: the issuer’s IAE heading for the filing workers', () => {
  it('is the epígrafe of the issuer’s client details; none for an issuer without one', async () => {
    const t = await makeClientsEngine();
    try {
      const created = await crear(t, anAutonomo({ nif: '23456789D', nombre: 'ETXEBERRIA GOIKOETXEA MIKEL', hacienda: 'tbai-bizkaia', epigrafeIAE: '197330' }));
      expect(created.statusCode, created.body).toBe(201);
      expect(epigrafeIaeOf(t.engine.context.db, '23456789D')).toBe('197330');
      expect(epigrafeIaeOf(t.engine.context.db, 'B12345674')).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});
