// TicketBAI follows the phase table: one signature chain per (environment, issuer) until `activa`,
// with idMaquina as metadata (no NumSerieDispositivo declared); in `activa` each device declares
// itself (NumSerieDispositivo = last 30 characters of idMaquina) and chains on its own, the
// centralized writer keeping the issuer's chain. The treasuries follow the chain of each declared
// device, and Araba flags the first invoice of each with warning 009.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateTestCertificate } from '../../../engine/src/regimes/ticketbai/certificados';
import type { FaseAltaCapacidad } from '../../../engine/src/db/schema/devices';
import { DeviceStore } from '../../../engine/src/devices/store';
import { ManualClock } from '../../../engine/src/platform/clock';
import { ticketbaiChainKey } from '../../../engine/src/regimes/ticketbai/service';
import { aTicketTbai } from '../../fixtures/ticketbai';
import { useEngineWithEmulators } from '../../support/filing';
import { renameTable } from '../../support/db-faults';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const GIPUZKOA = 'A58818501';
const GIPUZKOA_CONCURRENTE = 'B44444448';
const ARABA = 'B87654323';
const GIPUZKOA_UNICA = 'B22222228';
const ARABA_PREPARACION = 'B11111119';

const env = useEngineWithEmulators({
  clock,
  waitSeconds: 0,
  aeat: { timeoutMs: 3000 },
  ticketbaiIssuers: (
    [
      [GIPUZKOA, 'tbai-gipuzkoa'],
      [GIPUZKOA_CONCURRENTE, 'tbai-gipuzkoa'],
      [ARABA, 'tbai-araba'],
      [GIPUZKOA_UNICA, 'tbai-gipuzkoa'],
      [ARABA_PREPARACION, 'tbai-araba'],
    ] as const
  ).map(([nif, hacienda]) => ({ nif, nombre: `EMISOR ${nif} SL`, hacienda })),
});

const devices = () => new DeviceStore(env.t.engine.context.db);
function phase(nif: string, fase: FaseAltaCapacidad, registered: string[] = []) {
  const accountId = env.t.engine.context.accounts.listAccounts()[0]!.id;
  const now = clock.now().toISOString();
  devices().setPhase(accountId, nif, fase, now);
  for (const idMaquina of registered) devices().insertDevice({ entorno: 'test', nif, idMaquina, etiqueta: '', now });
}

beforeAll(() => {
  phase(GIPUZKOA, 'activa', ['caja-A', 'caja-B']);
  phase(GIPUZKOA_CONCURRENTE, 'activa', ['tpv-norte', 'tpv-sur']);
  const cola = 'abcdefghijklmnopqrstuvwxyz0123';
  phase(ARABA, 'activa', ['caja-araba', `tienda-1-${cola}`, `tienda-2-${cola}`, `tienda-2-${cola.slice(1)}9`]);
  phase(GIPUZKOA_UNICA, 'no_contratada');
  phase(ARABA_PREPARACION, 'preparacion', ['caja-prep']);
});

function factura(provincia: 'gipuzkoa' | 'araba', nif: string, numero: string, idMaquina?: string, serie = 'D') {
  return { ...aTicketTbai(provincia, { nif, nombre: `EMISOR ${nif} SL` }, serie, numero), ...(idMaquina ? { idMaquina } : {}) };
}

async function crear(body: ReturnType<typeof factura>): Promise<{ idFactura: string; avisos?: string[] }> {
  const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const xmlOf = async (nif: string, id: string) => (await env.t.billing('GET', `/v1/facturas/${id}/xml?nifEmisor=${nif}`)).body;
const firma = (xml: string) => /<ds:SignatureValue[^>]*>([^<]+)</.exec(xml)?.[1]?.replace(/\s/g, '') ?? '';
const dispositivoDeclarado = (xml: string) => /<NumSerieDispositivo>([^<]*)</.exec(xml)?.[1];
/** EncadenamientoFacturaAnterior of a signed alta: the previous number and signature prefix, or null. */
function anterior(xml: string): { numero: string; firma: string } | null {
  const m = /<EncadenamientoFacturaAnterior>.*?<NumFacturaAnterior>([^<]*)<\/NumFacturaAnterior>.*?<SignatureValueFirmaFacturaAnterior>([^<]*)</.exec(xml);
  return m ? { numero: m[1] ?? '', firma: m[2] ?? '' } : null;
}
const codesOf = (provincia: 'gipuzkoa' | 'araba', nif: string) =>
  env.emu.tbai.ledger.presentations({ provincia }).filter((p) => p.nif === nif);

describe('no_contratada and preparacion: one chain per issuer; idMaquina is metadata, never declared', () => {
  it('invoices from two idMaquina chain one after the other on the issuer chain, declare no device, and the treasury sees no 010', async () => {
    const ids = [];
    for (const [numero, dev] of [['1', 'caja-A'], ['2', 'caja-B'], ['3', 'caja-A']] as const) ids.push((await crear(factura('gipuzkoa', GIPUZKOA_UNICA, numero, dev))).idFactura);
    const [x1, x2, x3] = (await Promise.all(ids.map((id) => xmlOf(GIPUZKOA_UNICA, id)))) as [string, string, string];
    expect([x1, x2, x3].map(dispositivoDeclarado)).toEqual([undefined, undefined, undefined]);
    expect(anterior(x1)).toBeNull();
    expect(anterior(x2)).toEqual({ numero: '1', firma: firma(x1).slice(0, 100) });
    expect(anterior(x3)).toEqual({ numero: '2', firma: firma(x2).slice(0, 100) });
    const chain = env.t.engine.context.invoices.chain(ticketbaiChainKey('test', GIPUZKOA_UNICA));
    expect(chain.map((r) => r.idMaquina)).toEqual(['caja-A', 'caja-B', 'caja-A']);
    await env.fileEverything();
    expect(codesOf('gipuzkoa', GIPUZKOA_UNICA).flatMap((p) => p.codes)).toEqual([]);
    expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA_UNICA)?.length).toBe(3);
  });

  it('preparacion: a registered device still issues on the issuer chain; its idMaquina is noted; Araba flags only the issuer chain’s first invoice', async () => {
    const first = await crear(factura('araba', ARABA_PREPARACION, 'P-1', 'caja-prep'));
    const second = await crear(factura('araba', ARABA_PREPARACION, 'P-2', 'caja-nueva'));
    expect(first.avisos?.join(' ')).toContain('009');
    expect(second.avisos).toBeUndefined();
    expect(env.t.engine.context.invoices.chain(ticketbaiChainKey('test', ARABA_PREPARACION))).toHaveLength(2);
    expect(devices().observed({ entorno: 'test', nif: ARABA_PREPARACION }, '2000-01-01T00:00:00.000Z').map((o) => o.idMaquina).sort()).toEqual(['caja-nueva', 'caja-prep']);
    await env.fileEverything();
    expect(codesOf('araba', ARABA_PREPARACION).map((p) => p.codes)).toEqual([['009'], []]);
  });
});

describe('activa: each device chains on its own; the centralized writer keeps the issuer chain', () => {
  it('invoices on devices A, B, A, B and centralized ones: each chains to the previous invoice of its own writer; the treasury sees no 010', async () => {
    const ids = [];
    for (const [numero, dev, serie] of [['1', 'caja-A', 'DA'], ['2', 'caja-B', 'DB'], ['3', undefined, 'DC'], ['4', 'caja-A', 'DA'], ['5', 'caja-B', 'DB'], ['6', undefined, 'DC']] as const) {
      ids.push((await crear(factura('gipuzkoa', GIPUZKOA, numero, dev, serie))).idFactura);
    }
    const [x1, x2, x3, x4, x5, x6] = (await Promise.all(ids.map((id) => xmlOf(GIPUZKOA, id)))) as [string, string, string, string, string, string];
    expect([x1, x2, x3, x4, x5, x6].map(dispositivoDeclarado)).toEqual(['caja-A', 'caja-B', undefined, 'caja-A', 'caja-B', undefined]);
    expect([anterior(x1), anterior(x2), anterior(x3)]).toEqual([null, null, null]);
    expect(anterior(x4)).toEqual({ numero: '1', firma: firma(x1).slice(0, 100) });
    expect(anterior(x5)).toEqual({ numero: '2', firma: firma(x2).slice(0, 100) });
    expect(anterior(x6)).toEqual({ numero: '3', firma: firma(x3).slice(0, 100) });
    await env.fileEverything();
    const presentaciones = codesOf('gipuzkoa', GIPUZKOA);
    expect(presentaciones).toHaveLength(6);
    expect(presentaciones.flatMap((p) => p.codes)).not.toContain('010');
    expect(env.emu.tbai.ledger.chainIntact('gipuzkoa', GIPUZKOA)).toBe(true);
    expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA, 'caja-A')?.length).toBe(2);
    expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA, 'caja-B')?.length).toBe(2);
    expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA)?.length).toBe(2);
  });

  it('the device chain is the declared device, the last 30 characters of idMaquina; no device → the issuer chain', () => {
    const largo = 'tienda-01-' + 'x'.repeat(30);
    expect(ticketbaiChainKey('test', GIPUZKOA, largo)).toBe(ticketbaiChainKey('test', GIPUZKOA, 'otra-' + 'x'.repeat(30)));
    expect(ticketbaiChainKey('test', GIPUZKOA, 'caja-A')).not.toBe(ticketbaiChainKey('test', GIPUZKOA, 'caja-B'));
    expect(ticketbaiChainKey('test', GIPUZKOA, undefined)).toBe(ticketbaiChainKey('test', GIPUZKOA, null));
    expect(ticketbaiChainKey('test', GIPUZKOA, undefined)).not.toBe(ticketbaiChainKey('test', GIPUZKOA, 'caja-A'));
  });

  it('an unregistered device: 409 MACHINE_NOT_REGISTERED; a series of another writer: 409 SERIE_OWNED_BY_OTHER_MACHINE; nothing stored', async () => {
    const invoices = () => (env.t.engine.context.db.statement('SELECT COUNT(*) AS n FROM invoices').get() as { n: number }).n;
    const before = invoices();
    const unknown = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', GIPUZKOA, 'X-1', 'caja-Z', 'DZ') });
    expect([unknown.statusCode, unknown.json().code]).toEqual([409, 'MACHINE_NOT_REGISTERED']);
    const owned = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', GIPUZKOA, 'X-2', 'caja-B', 'DA') });
    expect([owned.statusCode, owned.json().code]).toEqual([409, 'SERIE_OWNED_BY_OTHER_MACHINE']);
    const central = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', GIPUZKOA, 'X-3', undefined, 'DA') });
    expect([central.statusCode, central.json().code]).toEqual([409, 'SERIE_OWNED_BY_OTHER_MACHINE']);
    expect(invoices()).toBe(before);
  });

  it('a cancellation claims nothing and is accepted whatever writer sends it', async () => {
    const a = await crear(factura('gipuzkoa', GIPUZKOA, 'AN-1', 'caja-A', 'DA'));
    const series = () => devices().series({ entorno: 'test', nif: GIPUZKOA }).length;
    const before = series();
    const res = await env.t.billing('POST', '/v1/ticketbai/anular', {
      body: { provincia: 'gipuzkoa', nifEmisor: GIPUZKOA, serie: 'DA', numero: 'AN-1', fechaExpedicion: '20-11-2026' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.idFactura).toBe(a.idFactura);
    expect(series()).toBe(before);
  });

  it('200 concurrent crear across 2 devices leave two unbroken chains, and the treasury agrees', async () => {
    const tpvs = ['tpv-norte', 'tpv-sur'];
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', GIPUZKOA_CONCURRENTE, `C-${i}`, tpvs[i % 2], `S-${tpvs[i % 2]}`) }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(200).fill(200));
    for (const device of tpvs) {
      const chain = env.t.engine.context.invoices.chain(ticketbaiChainKey('test', GIPUZKOA_CONCURRENTE, device));
      expect(chain.map((r) => r.chainSeq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(new Set(chain.map((r) => r.idMaquina))).toEqual(new Set([device]));
      expect(anterior(chain[0]!.xml)).toBeNull();
      for (let i = 1; i < chain.length; i++) {
        const prev = chain[i - 1]!.xml;
        const prevNumero = /<CabeceraFactura><SerieFactura>[^<]*<\/SerieFactura><NumFactura>([^<]+)</.exec(prev)?.[1];
        expect(anterior(chain[i]!.xml)).toEqual({ numero: prevNumero, firma: firma(prev).slice(0, 100) });
      }
    }
    await env.fileEverything();
    const presentaciones = codesOf('gipuzkoa', GIPUZKOA_CONCURRENTE);
    expect(presentaciones).toHaveLength(200);
    expect(presentaciones.filter((p) => p.codes.length > 0)).toEqual([]);
    for (const device of tpvs) {
      expect(env.emu.tbai.ledger.chainIntact('gipuzkoa', GIPUZKOA_CONCURRENTE, device)).toBe(true);
      expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA_CONCURRENTE, device)?.length).toBe(100);
    }
  });
});

describe('Araba warning 009 is predicted on the first invoice of each declared device (last 30 characters of idMaquina)', () => {
  it('each device’s first invoice and the centralized chain’s first are flagged; two idMaquina ending in the same 30 characters are one device', async () => {
    const cola = 'abcdefghijklmnopqrstuvwxyz0123';
    const central = await crear(factura('araba', ARABA, 'W-0', undefined, 'WC'));
    const first = await crear(factura('araba', ARABA, 'W-1', `tienda-1-${cola}`, 'W1'));
    const same = await crear(factura('araba', ARABA, 'W-2', `tienda-2-${cola}`, 'W2'));
    const other = await crear(factura('araba', ARABA, 'W-3', `tienda-2-${cola.slice(1)}9`, 'W3'));
    const again = await crear(factura('araba', ARABA, 'W-4', `tienda-1-${cola}`, 'W1'));
    expect(central.avisos?.join(' ')).toContain('009');
    expect(first.avisos?.join(' ')).toContain('009');
    expect(same.avisos).toBeUndefined();
    expect(other.avisos?.join(' ')).toContain('009');
    expect(again.avisos).toBeUndefined();
    await env.fileEverything();
    const codes = (numero: string) => env.emu.tbai.ledger.presentations({ provincia: 'araba' }).find((p) => p.key?.endsWith(numero))?.codes;
    expect(['W-0', 'W-1', 'W-2', 'W-3', 'W-4'].map(codes)).toEqual([['009'], ['009'], [], ['009'], []]);
    const reg = (await env.t.billing('GET', `/v1/facturas/${same.idFactura}?nifEmisor=${ARABA}`)).json().registros[0];
    expect(reg.codigoRespuestaTbai).toBeUndefined();
  });
});

describe('SHARDING_UNAVAILABLE: the device configuration cannot be read → 503, nothing stored', () => {
  it('with the phase table unreadable, crear answers 503 whatever the phase; once readable, it issues', async () => {
    const invoices = () => (env.t.engine.context.db.statement('SELECT COUNT(*) AS n FROM invoices').get() as { n: number }).n;
    const before = invoices();
    renameTable(env.t.engine.context.db, 'issuer_phases', 'issuer_phases_fuera');
    try {
      for (const body of [factura('gipuzkoa', GIPUZKOA, 'U-1', 'caja-A', 'DA'), factura('gipuzkoa', GIPUZKOA_UNICA, 'U-1')]) {
        const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body });
        expect([res.statusCode, res.json().code]).toEqual([503, 'SHARDING_UNAVAILABLE']);
      }
    } finally {
      renameTable(env.t.engine.context.db, 'issuer_phases_fuera', 'issuer_phases');
    }
    expect(invoices()).toBe(before);
    await crear(factura('gipuzkoa', GIPUZKOA, 'U-1', 'caja-A', 'DA'));
  });
});

describe('LIVE: the same phase, with LIVE’s own device registry', () => {
  const LIVE_NIF = 'B76543214';
  it('a LIVE device chains on its own, a TEST-only device is 409 MACHINE_NOT_REGISTERED, the centralized writer keeps the issuer chain', async () => {
    const ctx = env.t.engine.context;
    // LIVE signs with the configured certificate (a test one here).
    const certificado = generateTestCertificate({ nif: LIVE_NIF, nombre: `EMISOR ${LIVE_NIF} SL`, now: new Date('2026-01-01T00:00:00Z') });
    const p12 = path.join(mkdtempSync(path.join(tmpdir(), 'tbai-live-')), 'firma.p12');
    writeFileSync(p12, certificado.pkcs12);
    ctx.config.ticketbai.certificate.live = { pkcs12Path: p12, password: certificado.password };
    const accountId = ctx.accounts.listAccounts()[0]!.id;
    ctx.issuers.create({ accountId, entorno: 'live', nif: LIVE_NIF, nombre: `EMISOR ${LIVE_NIF} SL`, hacienda: 'tbai-gipuzkoa', estadoRepresentacion: 'firmado' });
    ctx.issuers.create({ accountId, entorno: 'test', nif: LIVE_NIF, nombre: `EMISOR ${LIVE_NIF} SL`, hacienda: 'tbai-gipuzkoa' });
    phase(LIVE_NIF, 'activa', ['solo-test']);
    devices().insertDevice({ entorno: 'live', nif: LIVE_NIF, idMaquina: 'caja-live', etiqueta: '', now: clock.now().toISOString() });

    const live = (body: ReturnType<typeof factura>) => env.t.billing('POST', '/v1/ticketbai/crear', { key: env.t.keys.live, body });
    const ok = async (body: ReturnType<typeof factura>) => {
      const res = await live(body);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { idFactura: string };
    };
    const a1 = await ok(factura('gipuzkoa', LIVE_NIF, 'L-1', 'caja-live', 'LA'));
    const c1 = await ok(factura('gipuzkoa', LIVE_NIF, 'L-2', undefined, 'LC'));
    const a2 = await ok(factura('gipuzkoa', LIVE_NIF, 'L-3', 'caja-live', 'LA'));
    const refused = await live(factura('gipuzkoa', LIVE_NIF, 'L-4', 'solo-test', 'LT'));
    expect([refused.statusCode, refused.json().code]).toEqual([409, 'MACHINE_NOT_REGISTERED']);
    const deviceChain = ctx.invoices.chain(ticketbaiChainKey('live', LIVE_NIF, 'caja-live'));
    expect(deviceChain.map((r) => r.invoiceId)).toEqual([a1.idFactura, a2.idFactura]);
    expect(ctx.invoices.chain(ticketbaiChainKey('live', LIVE_NIF)).map((r) => r.invoiceId)).toEqual([c1.idFactura]);
    expect(dispositivoDeclarado(deviceChain[1]!.xml)).toBe('caja-live');
    expect(anterior(deviceChain[1]!.xml)).toEqual({ numero: 'L-1', firma: firma(deviceChain[0]!.xml).slice(0, 100) });
    await env.fileEverything();
    expect(env.emu.tbai.ledger.chainIntact('gipuzkoa', LIVE_NIF, 'caja-live')).toBe(true);
    expect(codesOf('gipuzkoa', LIVE_NIF).flatMap((p) => p.codes)).toEqual([]);
  });
});
