// Every route of the three APIs, and one round of the filing and webhook workers, against the
// desktop app's built engine bundle (vite build --mode main → out/main/engine-utility.js, run
// under plain Node as Electron's utilityProcess runs it, with a stand-in for its parent port):
// bare imports stay external there, so Node's CommonJS interop decides what a default import is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepRoutes } from '../../support/route-sweep';
import { buildDesktopMain, startDesktopBundle, type RunningArtefact } from '../../support/running-artefacts';

let run: RunningArtefact & { messages: unknown[] };
beforeAll(async () => {
  buildDesktopMain();
  run = await startDesktopBundle();
}, 120_000);
afterAll(async () => run?.stop());

describe('desktop engine bundle: every route answers a well-formed request without 5xx', () => {
  it('reports ready over the parent port; all documented routes have a sample, none answers 5xx, the workers file and deliver', async () => {
    expect(run.messages[0]).toMatchObject({ type: 'ready', urls: { billing: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) } });
    const result = await sweepRoutes(run.dataDir);
    expect(result.missing, 'routes without a sample in test/support/route-sweep.ts').toEqual([]);
    expect(result.unknown, 'samples of routes that are not documented').toEqual([]);
    expect(result.serverErrors, run.output.slice(-40).join('\n')).toEqual([]);
    expect(result.filed).toBe('registrada');
    expect(result.delivered).toContain('factura.registrada');
    // No webhook to the engine's own ports or its emulators' (the ports it really listens on).
    expect(result.ownPortsRefused).toEqual([400, 400]);
    // …and the filing thread's webhook worker checks again before sending: nothing reaches it.
    expect(result.ownPortDelivery).toMatch(/^no enviada, dirección no permitida: .*engine's own port/);
    expect(result.statuses['manage POST /v1/clientes/{nif}/representacion/firmar']).toBe(200);
    expect(result.statuses['manage POST /v1/clientes/{nif}/representacion/verificar']).toBe(200);
    // …and for a cancellation's signed XML.
    expect(result.tipoRegistro).toBe('anulacion');
    expect(result.statuses['billing GET /v1/registros/{idRegistro}/xml']).toBe(200);
    // The host's stop message ends it cleanly.
    run.child.send({ type: 'stop' });
    expect(await run.exited).toBe(0);
  }, 120_000);
});
