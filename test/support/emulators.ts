import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmulators, type RunningEmulators } from '../../engine/emulators/index';
import type { TlsOptions } from '../../engine/emulators/router';
import type { ManualClock } from '../../engine/src/platform/clock';

export const AEAT_PATH = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP';

/** The shipped emulators on a free port with a fresh ledger (removed by close()); shares the test's clock when given; HTTPS with `tls`. */
export async function startTestEmulators(
  options: { clock?: ManualClock; waitSeconds?: number; tls?: TlsOptions } = {},
): Promise<RunningEmulators & { aeatUrl: string }> {
  let n = 0;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'emulators-'));
  const emulators = await startEmulators({
    port: 0,
    dataDir,
    ...(options.clock ? { clock: () => options.clock!.now() } : {}),
    ids: () => `emu-${++n}`,
    aeat: { waitSeconds: options.waitSeconds ?? 60 },
    ...(options.tls ? { tls: options.tls } : {}),
  });
  // Closing also removes the ledger's folder: nothing of a test's emulators outlives it.
  const close = emulators.close.bind(emulators);
  return Object.assign(emulators, {
    aeatUrl: `${emulators.url}${AEAT_PATH}`,
    async close() {
      await close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  });
}

/** What startTestEmulators gives a test: the running emulators and the AEAT SOAP url. */
export type Emulators = Awaited<ReturnType<typeof startTestEmulators>>;
