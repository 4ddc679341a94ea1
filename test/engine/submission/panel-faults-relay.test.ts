import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulators, type Emulators } from '../../support/emulators';
import { makeTestEngine, type TestEngine } from '../../support/engine';

let t: TestEngine;
let emu: Emulators;

beforeAll(async () => {
  emu = await startTestEmulators();
  t = await makeTestEngine();
  t.engine.context.config.emulatorUrl = emu.url;
});
afterAll(async () => {
  await t.close();
  await emu.close();
});

const panel = (method: 'GET' | 'PUT', body?: unknown) =>
  t.panel(method, '/panel/v1/emuladores/aeat/faults', body);

describe("The panel relays the AEAT emulator's fault controls", () => {
  it('GET and PUT reach the AEAT controls by their explicit path, not the /__control/ alias', async () => {
    const paths: string[] = [];
    const spy = http.createServer((req, res) => {
      paths.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"mode":"none"}');
    });
    await new Promise<void>((resolve) => spy.listen(0, '127.0.0.1', resolve));
    t.engine.context.config.emulatorUrl = `http://127.0.0.1:${(spy.address() as AddressInfo).port}`;
    try {
      expect((await panel('GET')).json()).toEqual({ mode: 'none' });
      expect((await panel('PUT', { mode: 'none' })).statusCode).toBe(200);
      expect(paths).toEqual(['GET /__control/aeat/faults', 'PUT /__control/aeat/faults']);
    } finally {
      t.engine.context.config.emulatorUrl = emu.url;
      await new Promise((resolve) => spy.close(resolve));
    }
  });

  it('GET answers the emulator state a PUT set', async () => {
    expect((await panel('PUT', { mode: 'slow', delayMs: 10 })).statusCode).toBe(200);
    const res = await panel('GET');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ mode: 'slow', delayMs: 10 });
    expect(emu.aeat.faults.state).toMatchObject({ mode: 'slow', delayMs: 10 });
    await panel('PUT', { mode: 'none' });
  });

  it("the emulator's 400 is the panel's 400 naming the field, and changes nothing", async () => {
    const badMode = await panel('PUT', { mode: 'sideways' });
    expect(badMode.statusCode).toBe(400);
    expect(badMode.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'mode' });

    const badCount = await panel('PUT', { rejectNext: { count: 0, codigo: 1100 } });
    expect(badCount.statusCode).toBe(400);
    expect(badCount.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'rejectNext.count' });

    const unknown = await panel('PUT', { caida: true });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'caida' });
    expect(emu.aeat.faults.state).toMatchObject({ mode: 'none' });
  });

  it('without emulators the relay answers 404 EMULATORS_NOT_RUNNING', async () => {
    t.engine.context.config.emulatorUrl = undefined;
    try {
      const res = await panel('GET');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'EMULATORS_NOT_RUNNING' });
    } finally {
      t.engine.context.config.emulatorUrl = emu.url;
    }
  });
});

describe("The panel relays every other emulator's fault controls by its own path", () => {
  const relay = (ruta: string, method: 'GET' | 'PUT', body?: unknown) =>
    t.panel(method, ruta, body);

  it.each(['araba', 'bizkaia', 'gipuzkoa'] as const)('TicketBAI %s: PUT sets that province only, GET reads it back', async (provincia) => {
    const ruta = `/panel/v1/emuladores/tbai/${provincia}/faults`;
    const put = await relay(ruta, 'PUT', { mode: 'down' });
    expect(put.statusCode).toBe(200);
    expect(emu.tbai.faults[provincia].state).toMatchObject({ mode: 'down' });
    for (const other of (['araba', 'bizkaia', 'gipuzkoa'] as const).filter((p) => p !== provincia)) {
      expect(emu.tbai.faults[other].state).toMatchObject({ mode: 'none' });
    }
    expect((await relay(ruta, 'GET')).json()).toMatchObject({ mode: 'down' });
    expect((await relay(ruta, 'PUT', { mode: 'none' })).statusCode).toBe(200);
    expect(emu.aeat.faults.state).toMatchObject({ mode: 'none' });
  });

  it("a TicketBAI emulator's 400 is the panel's 400 naming the field", async () => {
    const res = await relay('/panel/v1/emuladores/tbai/gipuzkoa/faults', 'PUT', { mode: 'sideways' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'mode' });
  });

  it("the census relay answers the census emulator's state, and its 400 names the field", async () => {
    const ok = await relay('/panel/v1/emuladores/censo/faults', 'GET');
    expect(ok.statusCode).toBe(200);
    const bad = await relay('/panel/v1/emuladores/censo/faults', 'PUT', { mode: 'sideways' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'mode' });
  });
});
