// GET /panel/v1/sync/alcance: whether each authority answers, known before the first send fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { startTestEmulators, type Emulators } from '../../support/emulators';

let t: TestEngine;
let emu: Emulators;
const clock = new ManualClock('2026-11-20T10:00:00.000Z');

beforeAll(async () => {
  emu = await startTestEmulators({ clock, waitSeconds: 60 });
  // LIVE AEAT points at a port nothing listens on (a host that refuses connections).
  t = await makeTestEngine({ clock, submission: { aeat: { url: { test: emu.aeatUrl, live: 'http://127.0.0.1:9/ws' }, timeoutMs: 2000 } } });
  t.engine.context.config.emulatorUrl = emu.url;
});
afterAll(async () => {
  await t.close();
  await emu.close();
});

const alcance = async (entorno: 'test' | 'live') => {
  const res = await t.panel('GET', `/panel/v1/sync/alcance?entorno=${entorno}`);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { entorno: string; autoridades: { autoridad: string; alcanzable: boolean; comprobadoEn: string }[] };
  return Object.fromEntries(body.autoridades.map((a) => [a.autoridad, a.alcanzable]));
};

describe('GET /panel/v1/sync/alcance', () => {
  it('reachable authorities; a refused connection is unreachable; the emulator taken down is unreachable before any send', async () => {
    const test = await alcance('test');
    expect(Object.keys(test)).toEqual(['aeat', 'tbai-araba', 'tbai-bizkaia', 'tbai-gipuzkoa']);
    expect(test.aeat).toBe(true);
    expect((await alcance('live')).aeat).toBe(false);
    // Only the authority asked for.
    const solo = await t.panel('GET', '/panel/v1/sync/alcance?entorno=test&autoridad=aeat');
    expect((solo.json() as { autoridades: { autoridad: string }[] }).autoridades.map((a) => a.autoridad)).toEqual(['aeat']);
    const bad = await t.panel('GET', '/panel/v1/sync/alcance?autoridad=otra');
    expect(bad.statusCode).toBe(400);
    const put = await t.panel('PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'down' });
    expect(put.statusCode, put.body).toBe(200);
    // Kept two seconds (the UI polls it): past that, probed again.
    expect((await alcance('test')).aeat).toBe(true);
    clock.advance(3000);
    expect((await alcance('test')).aeat).toBe(false);
    // Nothing was sent: the probe uses up no fault and files nothing.
    const faults = await t.panel('GET', '/panel/v1/emuladores/aeat/faults');
    expect((faults.json() as { mode: string }).mode).toBe('down');
    await t.panel('PUT', '/panel/v1/emuladores/aeat/faults', { mode: 'none' });
    clock.advance(3000);
    expect((await alcance('test')).aeat).toBe(true);
  });

  it('the panel token is required', async () => {
    const res = await t.engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/sync/alcance' });
    expect(res.statusCode).toBe(401);
  });
});
