import { afterAll, describe, expect, it } from 'vitest';
import { XsdValidator, extractBodyPayload, loadVerifactuSchemas } from '../../../engine/emulators/aeat/index';
import { referenceDir } from '../../../engine/emulators/paths';
import { ChainBuilder, buildEnvelope } from './builders';
import { DEMO, T0 } from './helpers';

// One worker validates one request after another with the same compiled schema in the same wasm
// heap: nothing of a run may leak into the next one.
describe('XSD validation, one worker, run after run', () => {
  const validator = new XsdValidator(loadVerifactuSchemas(referenceDir(), 'SuministroLR.xsd'), { poolSize: 1 });
  afterAll(() => validator.close());

  it('gives every document the verdict and the messages it gets alone, whatever ran before it', async () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const big = extractBodyPayload(buildEnvelope({ obligado: DEMO, records: Array.from({ length: 300 }, () => chain.alta()) })).xml;
    const small = extractBodyPayload(buildEnvelope({ obligado: DEMO, records: [chain.alta()] })).xml;
    const missingHuella = small.replace(/<sum1:Huella>[0-9A-F]{64}<\/sum1:Huella><\/sum1:RegistroAlta>/, '</sum1:RegistroAlta>');
    const badDate = small.replace(/<sum1:FechaExpedicionFactura>[^<]*</, '<sum1:FechaExpedicionFactura>2026-11-26<');
    const docs = [big, missingHuella, small, badDate];

    const alone: Array<{ valid: boolean; errors: string[] }> = [];
    for (const doc of docs) {
      const fresh = new XsdValidator(loadVerifactuSchemas(referenceDir(), 'SuministroLR.xsd'), { poolSize: 1 });
      const { valid, errors } = await fresh.validate(doc);
      await fresh.close();
      alone.push({ valid, errors });
    }
    expect(alone.map((r) => r.valid)).toEqual([true, false, true, false]);
    expect(alone[1]?.errors.join('\n')).toMatch(/Huella/);
    expect(alone[3]?.errors.join('\n')).toMatch(/FechaExpedicionFactura/);

    for (let round = 0; round < 3; round++) {
      for (const [i, doc] of docs.entries()) {
        const { valid, errors } = await validator.validate(doc);
        expect({ valid, errors }).toEqual(alone[i]);
      }
    }
  });
});
