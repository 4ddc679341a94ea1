// Every route of the three APIs, and one round of the filing and webhook workers, against the
// engine as `npm start` runs it (a process of its own, the package.json script): a route that
// fails only outside vitest's module loader (issue 28: a CommonJS default import) answers 5xx here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepRoutes } from '../../support/route-sweep';
import { startNpmStart, type RunningArtefact } from '../../support/running-artefacts';

let run: RunningArtefact;
beforeAll(async () => {
  run = await startNpmStart();
}, 120_000);
afterAll(async () => run?.stop());

describe('npm start: every route answers a well-formed request without 5xx', () => {
  it('all documented routes have a sample, none answers 5xx, the workers file and deliver', async () => {
    const result = await sweepRoutes(run.dataDir);
    expect(result.missing, 'routes without a sample in test/support/route-sweep.ts').toEqual([]);
    expect(result.unknown, 'samples of routes that are not documented').toEqual([]);
    expect(result.serverErrors, run.output.slice(-40).join('\n')).toEqual([]);
    expect(result.filed).toBe('registrada');
    expect(result.delivered).toContain('factura.registrada');
    // No webhook to the engine's own ports or its emulators' (the ports it really listens on).
    expect(result.ownPortsRefused).toEqual([400, 400]);
    // The hosted client's representation calls: a document signed here verifies.
    expect(result.statuses['manage POST /v1/clientes/{nif}/representacion/firmar']).toBe(200);
    expect(result.statuses['manage POST /v1/clientes/{nif}/representacion/verificar']).toBe(200);
  }, 120_000);
});
