// Support for the webhook delivery tests: the AEAT emulator, a real local receiver and an engine
// filing with the emulator and delivering with a short time-out, shared by a test file.
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ManualClock } from '../../../engine/src/platform/clock';
import { makeTestEngine, type TestEngine, type TestEngineOptions } from '../../support/engine';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { startReceiver, type Receiver } from '../../support/webhook-receiver';

export interface DeliveryRig {
  t: TestEngine;
  emu: Emulators;
  rx: Receiver;
}

export interface DeliveryRigOptions {
  clock: ManualClock;
  /** Engine settings besides the clock, the emulator's AEAT url and the 400 ms webhook time-out. */
  engine?: (emu: Emulators) => TestEngineOptions;
  /** After the rig started (e.g. the engine listening), before the first test. */
  onStart: (rig: DeliveryRig) => void | Promise<void>;
  /** After each test, once its webhooks are deleted and the receiver emptied. */
  afterEachTest?: () => void;
}

/**
 * Registers beforeAll/afterAll that start and close the emulators (AEAT wait 60 s), the receiver and
 * the engine; after each test, every webhook is deleted (all are linked to the demo issuer) and the
 * receiver forgets what it received.
 */
export function useDeliveryRig(options: DeliveryRigOptions): void {
  let rig: DeliveryRig | undefined;
  beforeAll(async () => {
    const emu = await startTestEmulators({ clock: options.clock, waitSeconds: 60 });
    const rx = await startReceiver();
    const t = await makeTestEngine({
      clock: options.clock,
      submission: { aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl } } },
      webhooks: { timeoutMs: 400 },
      ...options.engine?.(emu),
    });
    rig = { t, emu, rx };
    await options.onStart(rig);
  });
  afterAll(async () => {
    await rig?.t.close();
    await rig?.emu.close();
    await rig?.rx.close();
  });
  afterEach(async () => {
    if (!rig) return;
    const { t, rx } = rig;
    for (const w of (await t.manage('GET', '/v1/webhooks')).json().webhooks as { idWebhook: string }[]) {
      await t.manage('DELETE', `/v1/webhooks/${w.idWebhook}`);
    }
    rx.received.length = 0;
    options.afterEachTest?.();
  });
}
