import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../engine/src/platform/clock';
import { aTicketTbai, TBAI_ISSUER_LIST, TBAI_ISSUERS as ISSUERS, tbaiEmisor, type TbaiProvincia as Prov } from '../../fixtures/ticketbai';
import { useEngineWithEmulators } from '../../support/filing';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');

const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 }, ticketbaiIssuers: TBAI_ISSUER_LIST });

function factura(prov: Prov, numero: string, extra: Record<string, unknown> = {}) {
  return { ...aTicketTbai(prov, tbaiEmisor(prov), 'T', numero), ...extra };
}

/** factura() corrected: twice the amount, a complete invoice (F1). */
function corregida(prov: Prov, numero: string) {
  return factura(prov, numero, {
    tipoFactura: 'F1',
    importeTotal: '24.20',
    desglose: [{ baseImponible: '20.00', tipoImpositivo: '21.00', cuota: '4.20', calificacionOperacion: 'S1' }],
    lineas: [{ descripcion: 'Café', cantidad: '4', importeUnitario: '5.00', importeTotal: '24.20' }],
  });
}

const estado = async (prov: Prov, id: string) => (await env.t.billing('GET', `/v1/facturas/${id}/estado?nifEmisor=${ISSUERS[prov]}`)).json();
const detalle = async (prov: Prov, id: string) => (await env.t.billing('GET', `/v1/facturas/${id}?nifEmisor=${ISSUERS[prov]}`)).json();

function decodeQr(base64: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

describe('Per province: issue → registered; cancel → anulada', () => {
  for (const prov of ['gipuzkoa', 'araba', 'bizkaia'] as const) {
    it(`${prov}`, async () => {
      const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura(prov, `${prov}-1`) });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ estado: 'en_cola', sistemaFiscal: 'ticketbai', entorno: 'test', numeroFactura: `T${prov}-1` });
      expect(body.idTbai).toHaveLength(39);
      expect(body.idTbai.startsWith(`TBAI-${ISSUERS[prov]}-201126-`)).toBe(true);
      expect(decodeQr(body.qrBase64)).toBe(body.urlValidacion);
      await env.fileEverything();
      expect((await estado(prov, body.idFactura)).estadoFactura).toBe('registrada');
      const reg = (await detalle(prov, body.idFactura)).registros[0];
      expect(reg).toMatchObject({ estado: 'aceptada', estadoEnvioFinal: 'registrada', provincia: prov });
      expect(reg.tipoRespuestaTbai).toBeDefined();

      const anular = await env.t.billing('POST', '/v1/ticketbai/anular', {
        body: { nifEmisor: ISSUERS[prov], serie: 'T', numero: `${prov}-1`, fechaExpedicion: '20-11-2026', provincia: prov },
      });
      expect(anular.statusCode, anular.body).toBe(200);
      expect(anular.json().data.idTbai).toBe(body.idTbai);
      await env.fileEverything();
      expect((await estado(prov, body.idFactura)).estadoFactura).toBe('anulada');
      const again = await env.t.billing('POST', '/v1/ticketbai/anular', {
        body: { nifEmisor: ISSUERS[prov], serie: 'T', numero: `${prov}-1`, fechaExpedicion: '20-11-2026', provincia: prov },
      });
      expect(again.json().data.yaAnulada).toBe(true);
    });
  }
});

describe('Invoice n+1 carries the first 100 characters of invoice n’s SignatureValue', () => {
  it('chains within the issuer', async () => {
    const a = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'CH-1') })).json();
    const b = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'CH-2') })).json();
    const xmlA = (await env.t.billing('GET', `/v1/facturas/${a.idFactura}/xml?nifEmisor=${ISSUERS.gipuzkoa}`)).body;
    const xmlB = (await env.t.billing('GET', `/v1/facturas/${b.idFactura}/xml?nifEmisor=${ISSUERS.gipuzkoa}`)).body;
    const sigA = /<ds:SignatureValue[^>]*>([^<]+)</.exec(xmlA)?.[1]?.replace(/\s/g, '') ?? '';
    expect(sigA.length).toBeGreaterThan(100);
    expect(xmlB).toContain(`<SignatureValueFirmaFacturaAnterior>${sigA.slice(0, 100)}</SignatureValueFirmaFacturaAnterior>`);
    expect(xmlB).toContain('<NumFacturaAnterior>CH-1</NumFacturaAnterior>');
    await env.fileEverything();
  });
});

describe('A content rejection → subsanar through Zuzendu keeps idTbai and QR', () => {
  for (const prov of ['gipuzkoa', 'araba'] as const) {
    it(prov, async () => {
      env.emu.tbai.faults[prov].set({ rejectNext: { count: 1, codigo: '004' } });
      const res = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura(prov, 'Z-1') })).json();
      await env.fileEverything();
      const rejected = await estado(prov, res.idFactura);
      expect(rejected).toMatchObject({ estadoEnvio: 'rechazada' });
      expect(rejected).not.toHaveProperty('estadoFactura');
      // The correction changes the amounts (and the kind of invoice).
      const fix = await env.t.billing('PUT', '/v1/ticketbai/subsanar', { body: { ...corregida(prov, 'Z-1'), subsanacion: true } });
      expect(fix.statusCode, fix.body).toBe(200);
      expect(fix.json()).toMatchObject({ viaZuzendu: true, idTbai: res.idTbai, urlValidacion: res.urlValidacion, qrBase64: res.qrBase64 });
      await env.fileEverything();
      expect(await estado(prov, res.idFactura)).toMatchObject({ estadoFactura: 'registrada' });
      expect((await detalle(prov, res.idFactura)).factura).toMatchObject({ importeTotal: '24.20', cuotaTotal: '4.20', tipoFactura: 'F1', idTbai: res.idTbai });
      const registrada = env.t.engine.context.db
        .statement("SELECT datos FROM events WHERE invoiceId = ? AND evento = 'factura.registrada'")
        .all(res.idFactura) as { datos: string }[];
      expect(registrada.map((e) => JSON.parse(e.datos))).toEqual([expect.objectContaining({ importeTotal: '24.20', cuotaTotal: '4.20', tipoFactura: 'F1' })]);
      // The treasury registered it through Zuzendu (SUBSANAR), under the original identifier.
      expect(env.emu.tbai.ledger.getInvoiceByKey(prov, ISSUERS[prov], 'T', 'Z-1')).toMatchObject({
        estado: 'registrada',
        corrected: true,
        correction: 'SUBSANAR',
        idTbai: res.idTbai,
        importeTotal: '24.20',
      });
      expect(env.emu.tbai.ledger.presentations({ provincia: prov }).filter((p) => p.key?.endsWith('|T|Z-1')).map((p) => p.service)).toEqual(['alta', 'zuzendu-alta']);

      // The same correction again: its stored answer, nothing sent twice.
      const registros = (await detalle(prov, res.idFactura)).registros.length;
      const replay = await env.t.billing('PUT', '/v1/ticketbai/subsanar', { body: { ...corregida(prov, 'Z-1'), subsanacion: true } });
      expect(replay.statusCode, replay.body).toBe(200);
      expect(replay.json()).toMatchObject({ idFactura: res.idFactura, idTbai: res.idTbai, viaZuzendu: true, yaExistente: true });
      expect((await detalle(prov, res.idFactura)).registros).toHaveLength(registros);
      expect(env.jobsLeft()).toBe(0);
      // Another correction of an invoice the treasury now holds is not a replay.
      const other = await env.t.billing('PUT', '/v1/ticketbai/subsanar', { body: { ...corregida(prov, 'Z-1'), descripcion: 'Otra', subsanacion: true } });
      expect(other.statusCode).toBe(409);
      expect(other.json()).toMatchObject({ code: 'INVOICE_STATUS_INVALID' });
    });
  }

  it('bizkaia (no Zuzendu): the corrected invoice is signed and filed again under the same identity', async () => {
    env.emu.tbai.faults.bizkaia.set({ rejectNext: { count: 1, codigo: 'B4_2000020' } });
    const res = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('bizkaia', 'ZB-1') })).json();
    await env.fileEverything();
    expect(await estado('bizkaia', res.idFactura)).toMatchObject({ estadoEnvio: 'rechazada' });
    expect(await estado('bizkaia', res.idFactura)).not.toHaveProperty('estadoFactura');
    const fix = await env.t.billing('PUT', '/v1/ticketbai/subsanar', { body: { ...corregida('bizkaia', 'ZB-1'), subsanacion: true } });
    expect(fix.statusCode, fix.body).toBe(200);
    const body = fix.json();
    expect(body.viaZuzendu).toBeUndefined();
    expect(body.idFactura).toBe(res.idFactura);
    await env.fileEverything();
    expect(await estado('bizkaia', res.idFactura)).toMatchObject({ estadoFactura: 'registrada' });
    const d = await detalle('bizkaia', res.idFactura);
    expect(d.factura).toMatchObject({ importeTotal: '24.20', cuotaTotal: '4.20', tipoFactura: 'F1', idTbai: body.idTbai });
    expect(d.registros.map((r: { tipo: string; estado: string }) => [r.tipo, r.estado]).sort()).toEqual([
      ['alta', 'rechazada'],
      ['subsanacion', 'aceptada'],
    ]);
    // The treasury holds the re-signed invoice, the one whose identifier the answer carries.
    expect(env.emu.tbai.ledger.getInvoiceByKey('bizkaia', ISSUERS.bizkaia, 'T', 'ZB-1')).toMatchObject({ estado: 'registrada', idTbai: body.idTbai });
  });

  it('a rejection about the certificate → 409 RESEND_UNMODIFIED_REQUIRED', async () => {
    env.emu.tbai.faults.gipuzkoa.set({ rejectNext: { count: 1, codigo: '001' } });
    const res = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'C-1') })).json();
    await env.fileEverything();
    const fix = await env.t.billing('PUT', '/v1/ticketbai/subsanar', { body: { ...factura('gipuzkoa', 'C-1'), subsanacion: true } });
    expect(fix.statusCode).toBe(409);
    expect(fix.json()).toMatchObject({ code: 'RESEND_UNMODIFIED_REQUIRED' });
    expect(res.idTbai).toHaveLength(39);
  });
});

describe('Issuing rules', () => {
  it('provincia not the issuer’s hacienda → 400 PROVINCE_MISMATCH', async () => {
    const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body: { ...factura('gipuzkoa', 'PM-1'), provincia: 'araba' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'PROVINCE_MISMATCH', campo: 'provincia' });
  });
  it('PROVINCE_MISMATCH also on subsanar and anular, naming provincia', async () => {
    await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'PM-2') });
    const sub = await env.t.billing('PUT', '/v1/ticketbai/subsanar', { body: { ...factura('gipuzkoa', 'PM-2'), provincia: 'bizkaia', subsanacion: true } });
    expect(sub.statusCode).toBe(400);
    expect(sub.json()).toMatchObject({ code: 'PROVINCE_MISMATCH', campo: 'provincia' });
    const anu = await env.t.billing('POST', '/v1/ticketbai/anular', {
      body: { nifEmisor: ISSUERS.gipuzkoa, serie: 'T', numero: 'PM-2', fechaExpedicion: '20-11-2026', provincia: 'araba' },
    });
    expect(anu.statusCode).toBe(400);
    expect(anu.json()).toMatchObject({ code: 'PROVINCE_MISMATCH', campo: 'provincia' });
    await env.fileEverything();
  });
  it('billing inactive → 402 PAYMENT_REQUIRED for a new invoice, nothing stored; a replay still answers', async () => {
    const ctx = env.t.engine.context;
    const account = ctx.accounts.listAccounts()[0]!;
    const first = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('araba', 'PAY-1') })).json();
    const invoices = () => (ctx.db.statement('SELECT COUNT(*) AS n FROM invoices').get() as { n: number }).n;
    ctx.accounts.updateAccount(account.id, { facturacionActiva: 0 });
    try {
      const before = invoices();
      const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('araba', 'PAY-2') });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({ code: 'PAYMENT_REQUIRED' });
      expect(invoices()).toBe(before);
      const replay = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('araba', 'PAY-1') });
      expect(replay.statusCode, replay.body).toBe(200);
      expect(replay.json()).toMatchObject({ idFactura: first.idFactura, yaExistente: true });
    } finally {
      ctx.accounts.updateAccount(account.id, { facturacionActiva: 1 });
    }
    await env.fileEverything();
  });
  it('LIVE for a client issuer whose representation is unsigned → 403 REPRESENTATION_PENDING', async () => {
    const ctx = env.t.engine.context;
    const account = ctx.accounts.listAccounts()[0]!;
    ctx.issuers.create({ accountId: account.id, entorno: 'live', nif: 'B11111119', nombre: 'CLIENTE ARABA SL', hacienda: 'tbai-araba' });
    const res = await env.t.billing('POST', '/v1/ticketbai/crear', {
      key: env.t.keys.live,
      body: { ...factura('araba', 'RP-1'), emisor: { nif: 'B11111119', nombre: 'CLIENTE ARABA SL' } },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'REPRESENTATION_PENDING' });
  });
  it('same identity with another tipoFactura → 409 INVOICE_IDENTITY_CONFLICT naming tipoFactura', async () => {
    await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'TF-1') });
    const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'TF-1', { tipoFactura: 'F1' }) });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'INVOICE_IDENTITY_CONFLICT' });
    expect(JSON.stringify(res.json())).toContain('tipoFactura');
    expect(JSON.stringify(res.json())).not.toContain('importeTotal');
    await env.fileEverything();
  });
  it('a VeriFactu issuer → 403 FORBIDDEN', async () => {
    const res = await env.t.billing('POST', '/v1/ticketbai/crear', {
      body: { ...factura('gipuzkoa', 'VF-1'), emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' } },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'FORBIDDEN' });
  });
  it('replay → yaExistente; changed importeTotal → 409', async () => {
    const a = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('bizkaia', 'RP-1') })).json();
    const b = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('bizkaia', 'RP-1') })).json();
    expect(b).toMatchObject({ idFactura: a.idFactura, idTbai: a.idTbai, yaExistente: true });
    const c = await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('bizkaia', 'RP-1', { importeTotal: '13.00' }) });
    expect(c.statusCode).toBe(409);
    expect(c.json()).toMatchObject({ code: 'INVOICE_IDENTITY_CONFLICT' });
    await env.fileEverything();
  });
  it('lineas missing in Araba → 400 naming lineas', async () => {
    const { lineas: _l, ...sinLineas } = factura('araba', 'NL-1');
    const res = await env.t.billing('POST', '/v1/ticketbai/crear', { body: sinLineas });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', campo: 'lineas' });
  });
  it('LIVE without a configured signing certificate → 503 ENVIRONMENT_NOT_AVAILABLE', async () => {
    const ctx = env.t.engine.context;
    const account = ctx.accounts.listAccounts()[0]!;
    ctx.issuers.create({ accountId: account.id, entorno: 'live', nif: account.nif === 'A58818501' ? 'B00000034' : 'A58818501', nombre: 'X', hacienda: 'tbai-gipuzkoa', estadoRepresentacion: 'firmado' });
    const res = await env.t.billing('POST', '/v1/ticketbai/crear', { key: env.t.keys.live, body: factura('gipuzkoa', 'L-1') });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ code: 'ENVIRONMENT_NOT_AVAILABLE' });
  });
});

describe('Events of TicketBAI verdicts carry provincia and idRegistroTbai, motivoRechazo on rejections', () => {
  it('a rejection: motivoRechazo with the treasury code, no motivosAdicionales for a single reason', async () => {
    env.emu.tbai.faults.gipuzkoa.set({ rejectNext: { count: 1, codigo: '004' } });
    const res = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'MR-1') })).json();
    await env.fileEverything();
    const row = env.t.engine.context.db.statement("SELECT datos FROM events WHERE invoiceId = ? AND evento = 'factura.rechazada'").get(res.idFactura) as { datos: string };
    const datos = JSON.parse(row.datos);
    expect(datos).toMatchObject({ sistemaFiscal: 'ticketbai', provincia: 'gipuzkoa', tipoRegistro: 'alta', motivoRechazo: { codigo: '004' } });
    expect(datos.motivoRechazo.motivosAdicionales).toBeUndefined();
    expect(datos.idRegistroTbai).toBeUndefined();
  });
});

it('an acceptance: factura.registrada with provincia and the treasury’s idRegistroTbai', async () => {
  const res = (await env.t.billing('POST', '/v1/ticketbai/crear', { body: factura('gipuzkoa', 'EV-1') })).json();
  await env.fileEverything();
  const row = env.t.engine.context.db.statement("SELECT datos FROM events WHERE invoiceId = ? AND evento = 'factura.registrada'").get(res.idFactura) as { datos: string };
  const datos = JSON.parse(row.datos);
  expect(datos).toMatchObject({ sistemaFiscal: 'ticketbai', provincia: 'gipuzkoa', estadoFactura: 'registrada', idRegistroTbai: expect.any(String) });
  expect(datos.csvAeat).toBeUndefined();
  expect(datos.hashVerifactu).toBeUndefined();
});
