import { DOMParser } from '@xmldom/xmldom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ChainBuilder, buildEnvelope } from './builders';
import type { Harness } from './helpers';
import { DEMO, T0, parseFault, parseRespuesta, validateRespuesta, useHarness } from './helpers';

let h: Harness;
let chain: ChainBuilder;

// Each test resets through the control route, which is what these tests drive the emulator by.
useHarness((harness) => (h = harness), { reset: false });
beforeEach(async () => {
  const r = await h.control('POST', '/__control/reset');
  expect(r.status).toBe(200);
  h.clock.ms = T0;
  chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
});

const envelope = (...n: number[]): string =>
  buildEnvelope({ obligado: DEMO, records: (n.length ? n : [1]).flatMap((k) => Array.from({ length: k }, () => chain.alta())) });

async function setFaults(body: unknown): Promise<unknown> {
  const r = await h.control('PUT', '/__control/faults', body);
  expect(r.status).toBe(200);
  return r.json;
}

describe('fault injection', () => {
  it('GET /__control/faults shows normal service by default', async () => {
    const r = await h.control('GET', '/__control/faults');
    expect(r.json).toEqual({ mode: 'none', delayMs: 0, times: null, afterProcessing: false, rejectNext: null, acceptWithErrorsNext: null });
  });

  it('rejects invalid control bodies (zod)', async () => {
    expect((await h.control('PUT', '/__control/faults', { mode: 'exploded' })).status).toBe(400);
    expect((await h.control('PUT', '/__control/faults', { rejectNext: { count: 0, codigo: 1100 } })).status).toBe(400);
    expect((await h.control('PUT', '/__control/faults', { unknown: true })).status).toBe(400);
    const bad = await fetch(`${h.base}/__control/faults`, { method: 'PUT', body: '{not json' });
    expect(bad.status).toBe(400);
  });

  it('down: the connection is reset without an answer, like an unreachable host', async () => {
    await setFaults({ mode: 'down' });
    const err = await h.post(envelope()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error & { cause?: unknown }).cause ?? err)).toMatch(/ECONNRESET|other side closed|socket/i);
    expect(h.emu.ledger.countRecords()).toBe(0);
    expect(h.emu.ledger.submissions()).toEqual([expect.objectContaining({ outcome: 'injected', faultCode: 'down' })]);
    // The control API stays reachable, and the service comes back.
    await setFaults({ mode: 'none' });
    expect(parseRespuesta((await h.post(envelope())).text).estadoEnvio).toBe('Correcto');
  });

  it('slow: the answer arrives after delayMs', async () => {
    await setFaults({ mode: 'slow', delayMs: 300 });
    const t0 = performance.now();
    const r = await h.post(envelope());
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
  });

  it('slow after processing: records are registered before the delayed answer', async () => {
    await setFaults({ mode: 'slow', delayMs: 400, afterProcessing: true });
    // Registered while the answer is still held back: seen before the reply arrives, whenever
    // processing finishes (a fixed 200 ms wait failed on a loaded machine).
    let answered = false;
    const pending = h.post(envelope()).then((r) => {
      answered = true;
      return r;
    });
    await vi.waitFor(() => expect(h.emu.ledger.countRecords()).toBe(1), { timeout: 30_000, interval: 5 });
    expect(answered).toBe(false);
    expect(parseRespuesta((await pending).text).estadoEnvio).toBe('Correcto');
  });

  it('http500: an HTML 500 (not SOAP), nothing registered', async () => {
    await setFaults({ mode: 'http500' });
    const r = await h.post(envelope());
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/^<html>/);
    expect(h.emu.ledger.countRecords()).toBe(0);
  });

  it('serverFault: SOAP Fault env:Server (to be retried), nothing registered', async () => {
    await setFaults({ mode: 'serverFault' });
    const r = await h.post(envelope());
    expect(r.status).toBe(500);
    expect(parseFault(r.text).faultcode).toBe('env:Server');
    expect(h.emu.ledger.countRecords()).toBe(0);
  });

  it('malformed: 200 with truncated XML', async () => {
    await setFaults({ mode: 'malformed', afterProcessing: true });
    const r = await h.post(envelope());
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('</env:Envelope>');
    const errors: string[] = [];
    try {
      new DOMParser({ onError: (_l, msg) => errors.push(msg) }).parseFromString(r.text, 'text/xml');
    } catch (e) {
      errors.push(String(e));
    }
    expect(errors.length).toBeGreaterThan(0);
    // afterProcessing: AEAT registered the records even though the answer is garbage.
    expect(h.emu.ledger.countRecords()).toBe(1);
  });

  it('timeout: accepted and never answered; nothing registered by default', async () => {
    await setFaults({ mode: 'timeout' });
    await expect(h.post(envelope(), { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    expect(h.emu.ledger.countRecords()).toBe(0);
  });

  it('timeout after processing: the crash/reconcile story ends with 3000 and the original verdict', async () => {
    await setFaults({ mode: 'timeout', afterProcessing: true, times: 1 });
    const a = chain.alta();
    const b = chain.alta({ huellaOverride: 'B'.repeat(64) });
    const xml = buildEnvelope({ obligado: DEMO, records: [a, b] });
    await expect(h.post(xml, { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    expect(h.emu.ledger.countRecords()).toBe(2);
    h.clock.advance(60);
    const resp = parseRespuesta((await h.post(xml)).text); // times: 1, so service is back
    expect(resp.lineas.map((l) => [l.codigo, l.duplicado?.estado, l.duplicado?.codigo ?? null])).toEqual([
      [3000, 'Correcta', null],
      [3000, 'AceptadoConErrores', 2000],
    ]);
    expect(h.emu.ledger.duplicatesReceived()).toHaveLength(2);
  });

  it('times: the transport fault applies to that many requests only', async () => {
    await setFaults({ mode: 'http500', times: 2 });
    expect((await h.post(envelope())).status).toBe(500);
    expect((await h.post(envelope())).status).toBe(500);
    expect((await h.post(envelope())).status).toBe(200);
    expect(((await h.control('GET', '/__control/faults')).json as { mode: string }).mode).toBe('none');
  });

  it('rejectNext: the next K records are Incorrecto with that code and its AEAT description', async () => {
    await setFaults({ rejectNext: { count: 2, codigo: 1100 } });
    const r = await h.post(envelope(3));
    const resp = parseRespuesta(r.text);
    expect(resp.lineas.map((l) => [l.estado, l.codigo, l.descripcion])).toEqual([
      ['Incorrecto', 1100, 'Valor o tipo incorrecto del campo.'],
      ['Incorrecto', 1100, 'Valor o tipo incorrecto del campo.'],
      ['Correcto', null, null],
    ]);
    expect(resp.estadoEnvio).toBe('ParcialmenteCorrecto');
    expect((await validateRespuesta(r.text)).valid).toBe(true);
    expect(h.emu.ledger.countRecords()).toBe(1);
    expect(h.emu.faults.state.rejectNext).toBeNull();
  });

  it('acceptWithErrorsNext: the next K otherwise-correct records are AceptadoConErrores', async () => {
    await setFaults({ acceptWithErrorsNext: { count: 1, codigo: 2005 } });
    const resp = parseRespuesta((await h.post(envelope(2))).text);
    expect(resp.lineas.map((l) => [l.estado, l.codigo])).toEqual([
      ['AceptadoConErrores', 2005],
      ['Correcto', null],
    ]);
    expect(resp.lineas[0]?.descripcion).toMatch(/^El campo ImporteTotal tiene un valor incorrecto/);
  });

  it('DELETE /__control/faults and POST /__control/reset clear faults; reset empties the ledger', async () => {
    await setFaults({ mode: 'http500', rejectNext: { count: 5, codigo: 1100 } });
    await h.control('DELETE', '/__control/faults');
    expect(h.emu.faults.state).toMatchObject({ mode: 'none', rejectNext: null });
    await h.post(envelope());
    expect(h.emu.ledger.countRecords()).toBe(1);
    await setFaults({ mode: 'slow', delayMs: 5 });
    await h.control('POST', '/__control/reset');
    expect(h.emu.ledger.countRecords()).toBe(0);
    expect(h.emu.ledger.submissions()).toEqual([]);
    expect(h.emu.faults.state.mode).toBe('none');
  });

  it('the same API answers under /__control/aeat/', async () => {
    const r = await h.control('PUT', '/__control/aeat/faults', { mode: 'serverFault', times: 1 });
    expect(r.status).toBe(200);
    expect(parseFault((await h.post(envelope())).text).faultcode).toBe('env:Server');
  });
});

describe('control API', () => {
  it('GET /__control/health', async () => {
    const r = await h.control('GET', '/__control/health');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ok: true, emulators: expect.arrayContaining(['aeat', 'census']) });
  });

  it('ledger summary, records, submissions, chain and record lookups', async () => {
    const a = chain.alta();
    await h.post(buildEnvelope({ obligado: DEMO, records: [a, chain.alta()] }));
    const s = (await h.control('GET', '/__control/ledger/summary')).json as Record<string, unknown>;
    expect(s).toMatchObject({
      submissions: 1,
      processedSubmissions: 1,
      registered: 2,
      maxBatchSize: 2,
      byEstadoRegistro: { Correcta: 2 },
      obligados: [{ nif: DEMO.nif, records: 2, chainIntact: true, chainLength: 2 }],
    });
    const rec = await h.control('GET', `/__control/ledger/record?emisor=${DEMO.nif}&numSerie=${encodeURIComponent(a.id.numSerie)}&fecha=${a.id.fecha}`);
    expect(rec.status).toBe(200);
    expect(rec.json).toMatchObject({ record: { huella: a.huella, estadoRegistro: 'Correcta' }, presentations: [{ huella: a.huella }] });
    expect((await h.control('GET', '/__control/ledger/record?key=nope')).status).toBe(404);
    expect((await h.control('GET', `/__control/ledger/records?nif=${DEMO.nif}`)).json).toMatchObject({ records: [{}, {}] });
    expect((await h.control('GET', '/__control/ledger/submissions')).json).toMatchObject({ submissions: [{ recordCount: 2 }] });
    expect((await h.control('GET', `/__control/ledger/chain?nif=${DEMO.nif}`)).json).toMatchObject({ intact: true, head: { length: 2 }, breaks: [] });
    expect((await h.control('GET', '/__control/ledger/flow-violations')).json).toEqual({ violations: [] });
    expect((await h.control('GET', '/__control/ledger/nothing')).status).toBe(404);
  });

  it('PUT /__control/config changes TiempoEsperaEnvio', async () => {
    const r = await h.control('PUT', '/__control/config', { waitSeconds: 5 });
    expect(r.json).toMatchObject({ waitSeconds: 5 });
    try {
      expect(parseRespuesta((await h.post(envelope())).text).tiempoEsperaEnvio).toBe(5);
    } finally {
      await h.control('PUT', '/__control/config', { waitSeconds: 60 });
    }
  });
});

describe('flow control', () => {
  it('records a submission sent before TiempoEsperaEnvio elapsed, except a full batch', async () => {
    await h.post(envelope());
    h.clock.advance(30);
    await h.post(envelope()); // too early
    h.clock.advance(60);
    await h.post(envelope()); // fine
    h.clock.advance(1);
    const full = await h.post(envelope(1000)); // early, but 1000 records may go at once
    expect(full.status).toBe(200);
    const v = h.emu.ledger.flowViolations(DEMO.nif);
    expect(v).toEqual([expect.objectContaining({ sincePreviousMs: 30_000, requiredWaitMs: 60_000, recordCount: 1 })]);
    expect(h.emu.ledger.flowViolations('89890001K')).toEqual([]);
    // Violations are recorded, not punished: AEAT documents no error for them.
    expect(h.emu.ledger.countRecords(DEMO.nif)).toBe(1003);
  });
});
