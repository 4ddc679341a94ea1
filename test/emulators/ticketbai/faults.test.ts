import { gunzipSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { TBAI_PATHS } from '../../../engine/emulators/ticketbai/index';
import { BIZKAIA_POLICY, TbaiChain, gz, lroeHeaders, lroeXml } from './builders';
import type { Harness } from './helpers';
import { codes, parseLroe, parseSalida, useHarness, validateTicketBaiResponse } from './helpers';

let h: Harness;
let chain: TbaiChain;
const G = TBAI_PATHS.gipuzkoa;

useHarness((harness) => (h = harness));
beforeEach(() => {
  chain = new TbaiChain();
});

async function setFaults(prov: string, body: unknown): Promise<unknown> {
  const r = await h.control('PUT', `/__control/tbai/${prov}/faults`, body);
  expect(r.status).toBe(200);
  return r.json;
}

const isMalformed = (xml: string): boolean => {
  const errors: string[] = [];
  try {
    new DOMParser({ onError: (_l, msg) => errors.push(msg) }).parseFromString(xml, 'text/xml');
  } catch (e) {
    errors.push(String(e));
  }
  return errors.length > 0;
};

describe('fault injection (Araba / Gipuzkoa)', () => {
  it('GET faults shows normal service, with the AEAT emulator’s shape', async () => {
    for (const p of ['araba', 'gipuzkoa', 'bizkaia']) {
      expect((await h.control('GET', `/__control/tbai/${p}/faults`)).json).toEqual({
        mode: 'none',
        delayMs: 0,
        times: null,
        afterProcessing: false,
        rejectNext: null,
        acceptWithErrorsNext: null,
      });
    }
  });

  it('rejects invalid control bodies', async () => {
    expect((await h.control('PUT', '/__control/tbai/gipuzkoa/faults', { mode: 'exploded' })).status).toBe(400);
    expect((await h.control('PUT', '/__control/tbai/gipuzkoa/faults', { rejectNext: { count: 0, codigo: '005' } })).status).toBe(400);
    expect((await h.control('PUT', '/__control/tbai/gipuzkoa/faults', { unknown: true })).status).toBe(400);
    // Codes of another province.
    expect((await h.control('PUT', '/__control/tbai/gipuzkoa/faults', { rejectNext: { count: 1, codigo: 'B4_2000003' } })).status).toBe(400);
    expect((await h.control('PUT', '/__control/tbai/bizkaia/faults', { rejectNext: { count: 1, codigo: '005' } })).status).toBe(400);
    expect((await fetch(`${h.base}/__control/tbai/gipuzkoa/faults`, { method: 'PUT', body: '{not json' })).status).toBe(400);
    expect((await h.control('GET', '/__control/tbai/navarra/faults')).status).toBe(404);
  });

  it('down: the connection is reset without an answer; nothing registered; the service comes back', async () => {
    await setFaults('gipuzkoa', { mode: 'down', times: 1 });
    const err = await h.post(G.alta, chain.next().xml).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error & { cause?: unknown }).cause ?? err)).toMatch(/ECONNRESET|other side closed|socket/i);
    expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(0);
    expect(h.emu.ledger.submissions('gipuzkoa')).toEqual([expect.objectContaining({ outcome: 'injected', faultCode: 'down' })]);
    expect(parseSalida((await h.post(G.alta, chain.next().xml)).text).estado).toBe('00');
  });

  it('slow: the answer arrives after delayMs', async () => {
    await setFaults('araba', { mode: 'slow', delayMs: 300 });
    const t0 = performance.now();
    const r = await h.post(TBAI_PATHS.araba.alta, chain.next().xml);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    expect(parseSalida(r.text).estado).toBe('00');
  });

  it('slow after processing: the invoice is registered before the delayed answer', async () => {
    await setFaults('gipuzkoa', { mode: 'slow', delayMs: 400, afterProcessing: true });
    // Registered while the answer is still held back: seen before the reply arrives, whenever
    // processing finishes (a fixed 200 ms wait failed on a loaded machine).
    let answered = false;
    const pending = h.post(G.alta, chain.next().xml).then((r) => {
      answered = true;
      return r;
    });
    await vi.waitFor(() => expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(1), { timeout: 30_000, interval: 5 });
    expect(answered).toBe(false);
    expect(parseSalida((await pending).text).estado).toBe('00');
  });

  it('http500: an HTML 500, nothing registered', async () => {
    await setFaults('gipuzkoa', { mode: 'http500' });
    const r = await h.post(G.alta, chain.next().xml);
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/^<html>/);
    expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(0);
  });

  it('malformed: 200 with a truncated TicketBaiResponse; afterProcessing registers the invoice', async () => {
    await setFaults('gipuzkoa', { mode: 'malformed', afterProcessing: true });
    const inv = chain.next();
    const r = await h.post(G.alta, inv.xml);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/^<\?xml/);
    expect(r.text).not.toContain('</ns2:TicketBaiResponse>');
    expect(isMalformed(r.text)).toBe(true);
    expect(h.emu.ledger.getInvoice(inv.idTbai)?.estado).toBe('registrada');
    // The resend after the broken answer is the 005 the till must treat as "already there".
    await h.control('DELETE', '/__control/tbai/gipuzkoa/faults');
    expect(codes(parseSalida((await h.post(G.alta, inv.xml)).text))).toEqual(['005']);
  });

  it('timeout: accepted and never answered; nothing registered by default', async () => {
    await setFaults('gipuzkoa', { mode: 'timeout' });
    await expect(h.post(G.alta, chain.next().xml, { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(0);
  });

  it('timeout after processing: registered, then the resend answers 005', async () => {
    await setFaults('gipuzkoa', { mode: 'timeout', afterProcessing: true, times: 1 });
    const inv = chain.next();
    await expect(h.post(G.alta, inv.xml, { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(1);
    expect(codes(parseSalida((await h.post(G.alta, inv.xml)).text))).toEqual(['005']);
    expect(h.emu.ledger.duplicatesReceived('gipuzkoa')).toEqual([expect.objectContaining({ times: 2, sameSignature: true })]);
  });

  it('times: the transport fault applies to that many requests only', async () => {
    await setFaults('gipuzkoa', { mode: 'http500', times: 2 });
    expect((await h.post(G.alta, chain.next().xml)).status).toBe(500);
    expect((await h.post(G.alta, chain.next().xml)).status).toBe(500);
    expect((await h.post(G.alta, chain.next().xml)).status).toBe(200);
    expect(((await h.control('GET', '/__control/tbai/gipuzkoa/faults')).json as { mode: string }).mode).toBe('none');
  });

  it('rejectNext {count, codigo}: the next K invoices are 01 with that code and its description', async () => {
    await setFaults('gipuzkoa', { rejectNext: { count: 2, codigo: 6 } });
    const a = parseSalida((await h.post(G.alta, chain.next().xml)).text);
    expect(a.estado).toBe('01');
    expect(a.resultados).toEqual([
      {
        codigo: '006',
        descripcion: 'Error: El servicio de recepción no está disponible. Repita la operación más tarde',
        azalpena: 'Akatsa: Harrera-zerbitzua ez dago erabilgarri. Errepikatu eragiketa geroago',
      },
    ]);
    expect(codes(parseSalida((await h.post(G.alta, chain.next().xml)).text))).toEqual(['006']);
    const third = await h.post(G.alta, chain.next().xml);
    expect(parseSalida(third.text).estado).toBe('00');
    expect(await validateTicketBaiResponse(third.text)).toEqual({ valid: true, errors: [] });
    expect(h.emu.faults.gipuzkoa.state.rejectNext).toBeNull();
  });

  it('acceptWithErrorsNext / warningNext: the next K accepted invoices carry the warning', async () => {
    await setFaults('araba', { warningNext: { count: 1, codigo: '012' } });
    const s = parseSalida((await h.post(TBAI_PATHS.araba.alta, chain.next({ device: 'D' }).xml)).text);
    expect(s.estado).toBe('00');
    expect(codes(s)).toEqual(['009', '012']);
    expect(s.resultados[1]?.descripcion).toBe('Aviso: Error en verificación alta-inscripción software TicketBAI');
    await setFaults('gipuzkoa', { acceptWithErrorsNext: { count: 1, codigo: '014' } });
    expect(codes(parseSalida((await h.post(G.alta, chain.next().xml)).text))).toEqual(['014']);
    expect(codes(parseSalida((await h.post(G.alta, chain.next().xml)).text))).toEqual([]);
  });

  it('faults are per province', async () => {
    await setFaults('araba', { mode: 'http500' });
    expect((await h.post(G.alta, chain.next().xml)).status).toBe(200);
    expect((await h.post(TBAI_PATHS.araba.alta, chain.next().xml)).status).toBe(500);
  });

  it('DELETE faults and POST reset clear faults; reset empties the ledger (one province or all)', async () => {
    await setFaults('gipuzkoa', { mode: 'http500', rejectNext: { count: 5, codigo: '005' } });
    await h.control('DELETE', '/__control/tbai/gipuzkoa/faults');
    expect(h.emu.faults.gipuzkoa.state).toMatchObject({ mode: 'none', rejectNext: null });
    await h.post(G.alta, chain.next().xml);
    await h.post(TBAI_PATHS.araba.alta, chain.next().xml);
    await setFaults('gipuzkoa', { mode: 'slow', delayMs: 5 });
    expect((await h.control('POST', '/__control/tbai/gipuzkoa/reset')).status).toBe(200);
    expect(h.emu.ledger.countInvoices('gipuzkoa')).toBe(0);
    expect(h.emu.ledger.countInvoices('araba')).toBe(1);
    expect(h.emu.faults.gipuzkoa.state.mode).toBe('none');
    await h.control('POST', '/__control/tbai/reset');
    expect(h.emu.ledger.countInvoices('araba')).toBe(0);
    expect(h.emu.ledger.submissions()).toEqual([]);
  });
});

describe('fault injection (Bizkaia LROE)', () => {
  const batch = (n = 1): string => lroeXml({ model: '240', op: 'alta', files: Array.from({ length: n }, () => chain.next().xml) });
  beforeEach(() => {
    chain = new TbaiChain({ policy: BIZKAIA_POLICY });
  });

  it('rejectNext and acceptWithErrorsNext act per record of the batch', async () => {
    await setFaults('bizkaia', { rejectNext: { count: 1, codigo: 'B4_2000001' }, acceptWithErrorsNext: { count: 1, codigo: 'B4_2000070' } });
    const r = await h.lroe('240', batch(3));
    expect(r.headers.get('eus-bizkaia-n3-tipo-respuesta')).toBe('ParcialmenteCorrecto');
    expect(parseLroe(r.text).registros.map((x) => [x.estado, x.codigo])).toEqual([
      ['Incorrecto', 'B4_2000001'],
      ['AceptadoConErrores', 'B4_2000070'],
      ['Correcto', null],
    ]);
  });

  it('malformed: the headers of the answer with a gzipped, truncated XML', async () => {
    await setFaults('bizkaia', { mode: 'malformed', afterProcessing: true, times: 1 });
    const r = await fetch(h.base + TBAI_PATHS.bizkaia.lroe, { method: 'POST', body: gz(batch()), headers: lroeHeaders('240') });
    expect(r.status).toBe(200);
    expect(r.headers.get('eus-bizkaia-n3-tipo-respuesta')).toBe('Correcto');
    const raw = Buffer.from(await r.arrayBuffer()); // fetch has already gunzipped it
    expect(isMalformed(raw.toString('utf8'))).toBe(true);
    expect(h.emu.ledger.countInvoices('bizkaia')).toBe(1);
  });

  it('down, http500, timeout and slow work on the LROE endpoint', async () => {
    await setFaults('bizkaia', { mode: 'down', times: 1 });
    await expect(h.lroe('240', batch())).rejects.toThrow();
    await setFaults('bizkaia', { mode: 'http500', times: 1 });
    expect((await h.lroe('240', batch())).status).toBe(500);
    await setFaults('bizkaia', { mode: 'timeout', times: 1 });
    await expect(h.lroe('240', batch(), { signal: AbortSignal.timeout(300) })).rejects.toThrow(/abort|timeout/i);
    await setFaults('bizkaia', { mode: 'slow', delayMs: 250, times: 1 });
    const t0 = performance.now();
    const r = await h.lroe('240', batch());
    expect(performance.now() - t0).toBeGreaterThanOrEqual(240);
    expect(r.headers.get('eus-bizkaia-n3-tipo-respuesta')).toBe('Correcto');
    expect(h.emu.ledger.submissions('bizkaia').map((s) => s.faultCode ?? s.outcome)).toEqual(['down', 'http500', 'timeout', 'processed']);
  });

  it('the response body is really gzip on the wire', async () => {
    const http = await import('node:http');
    const url = new URL(h.base + TBAI_PATHS.bizkaia.lroe);
    const body = gz(batch());
    const raw = await new Promise<{ headers: Record<string, unknown>; buf: Buffer }>((resolve, reject) => {
      const req = http.request(
        { method: 'POST', hostname: url.hostname, port: url.port, path: url.pathname, headers: { ...lroeHeaders('240'), 'content-length': body.length } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ headers: res.headers, buf: Buffer.concat(chunks) }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.buf[0]).toBe(0x1f);
    expect(gunzipSync(raw.buf).toString('utf8')).toContain('<EstadoRegistro>Correcto</EstadoRegistro>');
  });
});

describe('control API', () => {
  it('health lists the TicketBAI routes', async () => {
    const r = await h.control('GET', '/__control/health');
    expect(r.json).toMatchObject({
      ok: true,
      emulators: expect.arrayContaining(['ticketbai']),
      routes: expect.arrayContaining(['/tbai/gipuzkoa/', '/tbai/araba/', '/tbai/bizkaia/', '/__control/tbai/']),
    });
  });

  it('urls, ledger summary, invoices, invoice, chain, devices, duplicates, submissions', async () => {
    expect((await h.control('GET', '/__control/tbai/urls')).json).toMatchObject({ paths: TBAI_PATHS });
    const inv = chain.next({ device: 'TPV-1' });
    await h.post(TBAI_PATHS.araba.alta, inv.xml);
    await h.post(TBAI_PATHS.araba.alta, inv.xml);
    const sum = (await h.control('GET', '/__control/tbai/ledger/summary')).json as Record<string, Record<string, unknown>>;
    expect(sum.all).toMatchObject({ submissions: 2, registered: 1, duplicatesReceived: 1, newDevices: 1 });
    expect(sum.araba).toMatchObject({ registered: 1, byVerdict: { 'accepted-with-warnings': 1, rejected: 1 } });
    expect(sum.gipuzkoa).toMatchObject({ submissions: 0 });
    const one = (await h.control('GET', `/__control/tbai/araba/ledger/invoice?idTbai=${encodeURIComponent(inv.idTbai)}`)).json as {
      invoice: { warnings: string[] };
      presentations: unknown[];
    };
    expect(one.invoice.warnings).toEqual(['009']);
    expect(one.presentations).toHaveLength(2);
    expect((await h.control('GET', '/__control/tbai/araba/ledger/invoice?nif=B12345674&serie=T&num=1')).status).toBe(200);
    expect((await h.control('GET', '/__control/tbai/araba/ledger/invoice?idTbai=nope')).status).toBe(404);
    expect((await h.control('GET', '/__control/tbai/araba/ledger/invoice')).status).toBe(400);
    expect((await h.control('GET', '/__control/tbai/araba/ledger/chain?nif=B12345674&device=TPV-1')).json).toMatchObject({
      intact: true,
      head: { num: '1', length: 1 },
    });
    expect((await h.control('GET', '/__control/tbai/araba/ledger/devices')).json).toMatchObject({ devices: [{ device: 'TPV-1' }] });
    expect((await h.control('GET', '/__control/tbai/araba/ledger/duplicates')).json).toMatchObject({ duplicates: [{ times: 2 }] });
    expect(((await h.control('GET', '/__control/tbai/araba/ledger/submissions')).json as { submissions: unknown[] }).submissions).toHaveLength(2);
    expect(((await h.control('GET', '/__control/tbai/araba/ledger/invoices?nif=B12345674')).json as { invoices: unknown[] }).invoices).toHaveLength(1);
    expect(((await h.control('GET', '/__control/tbai/araba/ledger/presentations')).json as { presentations: unknown[] }).presentations).toHaveLength(2);
  });

  it('config: checks can be switched off per province', async () => {
    const before = (await h.control('GET', '/__control/tbai/gipuzkoa/config')).json;
    expect(before).toMatchObject({ validateXsd: true, verifySignature: true, checkChain: true, requireLines: false, newDeviceWarning: false });
    expect((await h.control('GET', '/__control/tbai/araba/config')).json).toMatchObject({ requireLines: true, newDeviceWarning: true });
    const r = await h.control('PUT', '/__control/tbai/gipuzkoa/config', { verifySignature: false, checkChain: false });
    expect(r.json).toMatchObject({ verifySignature: false, checkChain: false });
    const tampered = chain.next().xml.replace('Venta en caja', 'Venta en cajo');
    expect(codes(parseSalida((await h.post(G.alta, tampered)).text))).toEqual([]);
    expect((await h.control('PUT', '/__control/tbai/gipuzkoa/config', { nope: 1 })).status).toBe(400);
    await h.control('PUT', '/__control/tbai/gipuzkoa/config', { verifySignature: true, checkChain: true });
  });
});
