import { describe, expect, it } from 'vitest';
import { ChainBuilder, buildEnvelope } from './builders';
import type { Harness } from './helpers';
import { DEMO, T0, parseFault, parseRespuesta, validateRespuesta, useHarness } from './helpers';

let h: Harness;

useHarness((harness) => (h = harness), { emulator: { xsdPoolSize: 2 } });

function batch(chain: ChainBuilder, n: number, obligado = DEMO): string {
  return buildEnvelope({ obligado, records: Array.from({ length: n }, () => chain.alta()) });
}

describe('batch limits', () => {
  it('accepts a batch of 1000 records', async () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 2 * 3600_000));
    const r = await h.post(batch(chain, 1000));
    expect(r.status).toBe(200);
    const resp = parseRespuesta(r.text);
    expect(resp.estadoEnvio).toBe('Correcto');
    expect(resp.lineas).toHaveLength(1000);
    expect((await validateRespuesta(r.text)).valid).toBe(true);
    expect(h.emu.ledger.countRecords(DEMO.nif)).toBe(1000);
    expect(h.emu.ledger.maxBatchSize()).toBe(1000);
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
  });

  it('refuses a batch of 1001 records as a whole (Codigo[4102]) and notes its size', async () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 2 * 3600_000));
    const r = await h.post(batch(chain, 1001));
    expect(r.status).toBe(500);
    const f = parseFault(r.text);
    expect(f.faultcode).toBe('env:Client');
    expect(f.faultstring).toMatch(/^Codigo\[4102\]\.El XML no cumple el esquema\. Se ha superado el límite de 1000/);
    expect(h.emu.ledger.countRecords()).toBe(0);
    // Tests can assert the engine never sent more than 1000 at once.
    expect(h.emu.ledger.maxBatchSize()).toBe(1001);
  });
});

describe('large requests (timings printed, never asserted)', () => {
  it('validates and answers six 1000-record requests in a row, printing how long each took', async () => {
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 5 * 3600_000));
    const rows: Array<{ totalMs: number; validateMs: number; processMs: number }> = [];
    for (let i = 0; i < 6; i++) {
      h.clock.advance(60);
      const xml = batch(chain, 1000);
      const t0 = performance.now();
      const r = await h.post(xml);
      const totalMs = performance.now() - t0;
      expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
      const s = h.emu.ledger.submissions().at(-1);
      rows.push({ totalMs, validateMs: s?.validateMs ?? Number.NaN, processMs: s?.processMs ?? Number.NaN });
    }
    const warm = rows.slice(1);
    const avg = (k: keyof (typeof rows)[number]): number => warm.reduce((a, r) => a + r[k], 0) / warm.length;
    console.log(
      `[aeat emulator] 1000-record request, sequential (first = cold):\n` +
        rows.map((r, i) => `  #${i}: total ${r.totalMs.toFixed(0)} ms (xsd+parse ${r.validateMs.toFixed(0)} ms, ledger ${r.processMs.toFixed(0)} ms)`).join('\n') +
        `\n  warm average: total ${avg('totalMs').toFixed(0)} ms -> ${(1000 / (avg('totalMs') / 1000)).toFixed(0)} records/s`,
    );
    expect(h.emu.ledger.countRecords()).toBe(6000);
  });

  it('serves several obligados in parallel', async () => {
    const obligados = [
      DEMO,
      { nif: '89890001K', nombre: 'CONTRIBUYENTE PRUEBAS AEAT' },
      { nif: 'A23456783', nombre: 'DISTRIBUCIONES EJEMPLO SA' },
      { nif: 'B76543214', nombre: 'CAFETERIA LA PRUEBA SL' },
    ];
    const bodies = obligados.map((o) => batch(new ChainBuilder(o.nif, new Date(T0 - 3 * 3600_000)), 1000, o));
    const t0 = performance.now();
    const res = await Promise.all(bodies.map((b) => h.post(b)));
    const ms = performance.now() - t0;
    for (const r of res) expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
    console.log(`[aeat emulator] 4 x 1000 records in parallel: ${ms.toFixed(0)} ms -> ${(4000 / (ms / 1000)).toFixed(0)} records/s`);
    expect(h.emu.ledger.countRecords()).toBe(4000);
  });
});
