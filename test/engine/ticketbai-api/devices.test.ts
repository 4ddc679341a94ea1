// TicketBAI chains per device (NumSerieDispositivo = last 30 characters of idMaquina), as the
// treasuries follow them, and Araba's warning 009 is predicted on the device they see.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { ticketbaiChainKey } from '../../../engine/src/ticketbai/service';
import { aTicketTbai } from '../../fixtures/ticketbai';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const GIPUZKOA = 'A58818501';
const GIPUZKOA_CONCURRENTE = 'B44444448';
const ARABA = 'B87654323';

const env = useEngineWithEmulators({
  clock,
  waitSeconds: 0,
  aeat: { timeoutMs: 3000 },
  ticketbaiIssuers: ([[GIPUZKOA, 'tbai-gipuzkoa'], [GIPUZKOA_CONCURRENTE, 'tbai-gipuzkoa'], [ARABA, 'tbai-araba']] as const).map(([nif, hacienda]) => ({ nif, nombre: `EMISOR ${nif} SL`, hacienda })),
});

function factura(provincia: 'gipuzkoa' | 'araba', nif: string, numero: string, idMaquina?: string) {
  return { ...aTicketTbai(provincia, { nif, nombre: `EMISOR ${nif} SL` }, 'D', numero), ...(idMaquina ? { idMaquina } : {}) };
}

async function crear(body: ReturnType<typeof factura>): Promise<{ idFactura: string; avisos?: string[] }> {
  const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const xmlOf = async (nif: string, id: string) => (await env.t.billing('GET', `/v1/facturas/${id}/xml?nifEmisor=${nif}`)).body;
const firma = (xml: string) => /<ds:SignatureValue[^>]*>([^<]+)</.exec(xml)?.[1]?.replace(/\s/g, '') ?? '';
/** EncadenamientoFacturaAnterior of a signed alta: the previous number and signature prefix, or null. */
function anterior(xml: string): { numero: string; firma: string } | null {
  const m = /<EncadenamientoFacturaAnterior>.*?<NumFacturaAnterior>([^<]*)<\/NumFacturaAnterior>.*?<SignatureValueFirmaFacturaAnterior>([^<]*)</.exec(xml);
  return m ? { numero: m[1] ?? '', firma: m[2] ?? '' } : null;
}

describe('Chains per device', () => {
  it('invoices on devices A, B, A, B: each chains to the previous invoice of its own device; the treasury sees no 010', async () => {
    const devA = 'caja-A';
    const devB = 'caja-B';
    const ids = [];
    for (const [numero, dev] of [['1', devA], ['2', devB], ['3', devA], ['4', devB]] as const) ids.push((await crear(factura('gipuzkoa', GIPUZKOA, numero, dev))).idFactura);
    const xmls = await Promise.all(ids.map((id) => xmlOf(GIPUZKOA, id)));
    const [x1, x2, x3, x4] = xmls as [string, string, string, string];
    expect(anterior(x1)).toBeNull();
    expect(anterior(x2)).toBeNull();
    expect(anterior(x3)).toEqual({ numero: '1', firma: firma(x1).slice(0, 100) });
    expect(anterior(x4)).toEqual({ numero: '2', firma: firma(x2).slice(0, 100) });
    await env.fileEverything();
    const presentaciones = env.emu.tbai.ledger.presentations({ provincia: 'gipuzkoa' }).filter((p) => p.nif === GIPUZKOA);
    expect(presentaciones).toHaveLength(4);
    expect(presentaciones.flatMap((p) => p.codes)).not.toContain('010');
    expect(env.emu.tbai.ledger.chainIntact('gipuzkoa', GIPUZKOA)).toBe(true);
    expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA, devA)?.length).toBe(2);
    expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA, devB)?.length).toBe(2);
  });

  it('the device is the last 30 characters of idMaquina; no idMaquina → the issuer’s default chain', () => {
    const largo = 'tienda-01-' + 'x'.repeat(30);
    expect(ticketbaiChainKey('test', GIPUZKOA, largo)).toBe(ticketbaiChainKey('test', GIPUZKOA, 'otra-' + 'x'.repeat(30)));
    expect(ticketbaiChainKey('test', GIPUZKOA, 'caja-A')).not.toBe(ticketbaiChainKey('test', GIPUZKOA, 'caja-B'));
    expect(ticketbaiChainKey('test', GIPUZKOA, undefined)).toBe(ticketbaiChainKey('test', GIPUZKOA, null));
    expect(ticketbaiChainKey('test', GIPUZKOA, undefined)).not.toBe(ticketbaiChainKey('test', GIPUZKOA, 'caja-A'));
  });

  it('200 concurrent crear across 2 devices leave two unbroken chains, and the treasury agrees', async () => {
    const devices = ['tpv-norte', 'tpv-sur'];
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', GIPUZKOA_CONCURRENTE, `C-${i}`, devices[i % 2]) }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(200).fill(200));
    for (const device of devices) {
      const chain = env.t.engine.context.invoices.chain(ticketbaiChainKey('test', GIPUZKOA_CONCURRENTE, device));
      expect(chain.map((r) => r.chainSeq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect(new Set(chain.map((r) => r.idMaquina))).toEqual(new Set([device]));
      expect(anterior(chain[0]!.xml)).toBeNull();
      for (let i = 1; i < chain.length; i++) {
        const prev = chain[i - 1]!.xml;
        const prevNumero = /<CabeceraFactura><SerieFactura>D<\/SerieFactura><NumFactura>([^<]+)</.exec(prev)?.[1];
        expect(anterior(chain[i]!.xml)).toEqual({ numero: prevNumero, firma: firma(prev).slice(0, 100) });
      }
    }
    await env.fileEverything();
    const presentaciones = env.emu.tbai.ledger.presentations({ provincia: 'gipuzkoa' }).filter((p) => p.nif === GIPUZKOA_CONCURRENTE);
    expect(presentaciones).toHaveLength(200);
    expect(presentaciones.filter((p) => p.codes.length > 0)).toEqual([]);
    for (const device of devices) {
      expect(env.emu.tbai.ledger.chainIntact('gipuzkoa', GIPUZKOA_CONCURRENTE, device)).toBe(true);
      expect(env.emu.tbai.ledger.chainHead('gipuzkoa', GIPUZKOA_CONCURRENTE, device)?.length).toBe(100);
    }
  });
});

describe('Araba warning 009 is predicted on the declared device (last 30 characters of idMaquina)', () => {
  it('two idMaquina ending in the same 30 characters are one device: only the first is flagged, as the treasury does', async () => {
    const cola = 'abcdefghijklmnopqrstuvwxyz0123';
    const first = await crear(factura('araba', ARABA, 'W-1', `tienda-1-${cola}`));
    const same = await crear(factura('araba', ARABA, 'W-2', `tienda-2-${cola}`));
    const other = await crear(factura('araba', ARABA, 'W-3', `tienda-2-${cola.slice(1)}9`));
    expect(first.avisos?.join(' ')).toContain('009');
    expect(same.avisos).toBeUndefined();
    expect(other.avisos?.join(' ')).toContain('009');
    await env.fileEverything();
    const codes = (numero: string) => env.emu.tbai.ledger.presentations({ provincia: 'araba' }).find((p) => p.key?.endsWith(numero))?.codes;
    expect(codes('W-1')).toEqual(['009']);
    expect(codes('W-2')).toEqual([]);
    expect(codes('W-3')).toEqual(['009']);
    const reg = (await env.t.billing('GET', `/v1/facturas/${same.idFactura}?nifEmisor=${ARABA}`)).json().registros[0];
    expect(reg.codigoRespuestaTbai).toBeUndefined();
  });
});
