// Every route of the three APIs, and one round of the filing and webhook workers, against the
// desktop app's built engine bundle (vite build --mode main → out/main/engine-utility.js, run
// under plain Node as Electron's utilityProcess runs it, with a stand-in for its parent port):
// bare imports stay external there, so Node's CommonJS interop decides what a default import is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanSweep, sweepRoutes } from '../../support/route-sweep';
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
    expectCleanSweep(await sweepRoutes(run.dataDir), run.output);
    // The host's stop message ends it cleanly.
    run.child.send({ type: 'stop' });
    expect(await run.exited).toBe(0);
  }, 120_000);
});
