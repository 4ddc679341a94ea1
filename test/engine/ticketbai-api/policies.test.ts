// The XAdES-EPES signature policy (identifier and digest) of each treasury comes from the engine's
// configuration; the shipped constants are only the defaults.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAccount } from '../../../engine/src/demo/account';
import { createEngine, type Engine } from '../../../engine/src/index';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import { verifyTicketBai } from '../../../engine/src/regimes/ticketbai/record/xades';
import { testEngineConfig } from '../../support/engine';

const POLITICA_GIPUZKOA = {
  identificador: 'https://www.gipuzkoa.eus/ticketbai/sinadura',
  digestSha256: 'vSe1CH7eAFVkGN0X2Y7Nl9XGUoBnziDA5BGUSsyt8mg=',
};
const ISSUERS = { gipuzkoa: 'A58818501', araba: 'B87654323' } as const;

let engine: Engine;
let dataDir: string;
let key = '';

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'engine-test-'));
  engine = await createEngine(testEngineConfig(dataDir, { ticketbai: { politicasFirma: { gipuzkoa: POLITICA_GIPUZKOA } } }));
  key = seedDemoAccount(engine.context)?.test ?? '';
  const account = engine.context.accounts.listAccounts()[0]!;
  for (const [prov, nif] of Object.entries(ISSUERS)) {
    engine.context.issuers.create({ accountId: account.id, entorno: 'test', nif, nombre: `EMISOR ${prov} SL`, hacienda: `tbai-${prov as keyof typeof ISSUERS}` });
  }
});
afterAll(async () => {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function signedXml(provincia: keyof typeof ISSUERS, body: Record<string, unknown>): Promise<string> {
  const res = await engine.apps.billing.inject({ method: 'POST', url: '/v1/ticketbai/crear', headers: { 'x-api-key': key }, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  const id = res.json().idFactura as string;
  return (await engine.apps.billing.inject({ method: 'GET', url: `/v1/facturas/${id}/xml?nifEmisor=${ISSUERS[provincia]}`, headers: { 'x-api-key': key } })).body;
}

const factura = (provincia: keyof typeof ISSUERS, numero: string) => ({
  provincia,
  emisor: { nif: ISSUERS[provincia], nombre: `EMISOR ${provincia} SL` },
  serie: 'P',
  numero,
  fechaExpedicion: '20-11-2026',
  horaExpedicion: '10:00:00',
  tipoFactura: 'F2',
  importeTotal: '12.10',
  desglose: [{ baseImponible: '10.00', tipoImpositivo: '21.00', cuota: '2.10', calificacionOperacion: 'S1' }],
  lineas: [{ descripcion: 'Café', cantidad: '2', importeUnitario: '5.00', importeTotal: '12.10' }],
});

const politicaEn = (xml: string) => ({
  identificador: /<xades:SigPolicyId><xades:Identifier>([^<]*)</.exec(xml)?.[1],
  spuri: /<xades:SPURI>([^<]*)</.exec(xml)?.[1],
  digestSha256: /<xades:SigPolicyHash>.*?<ds:DigestValue>([^<]*)</.exec(xml)?.[1],
});

describe('Signature policy per treasury from configuration', () => {
  it('an overridden policy (Gipuzkoa) is the one in the signed invoice and the signed cancellation; the signature verifies', async () => {
    const alta = await signedXml('gipuzkoa', factura('gipuzkoa', '1'));
    expect(politicaEn(alta)).toEqual({ ...POLITICA_GIPUZKOA, spuri: POLITICA_GIPUZKOA.identificador });
    expect(verifyTicketBai(alta).valid).toBe(true);
    const anular = await engine.apps.billing.inject({
      method: 'POST',
      url: '/v1/ticketbai/anular',
      headers: { 'x-api-key': key },
      payload: { nifEmisor: ISSUERS.gipuzkoa, serie: 'P', numero: '1', fechaExpedicion: '20-11-2026', provincia: 'gipuzkoa' },
    });
    expect(anular.statusCode, anular.body).toBe(200);
    const row = engine.context.db
      .statement("SELECT d.xml FROM registros r JOIN registro_documentos d ON d.registroId = r.id WHERE r.tipo = 'anulacion' AND r.nifEmisor = ?")
      .get(ISSUERS.gipuzkoa) as { xml: string };
    expect(politicaEn(row.xml).identificador).toBe(POLITICA_GIPUZKOA.identificador);
    expect(politicaEn(row.xml).digestSha256).toBe(POLITICA_GIPUZKOA.digestSha256);
  });

  it('a treasury not overridden keeps the default policy', async () => {
    const alta = await signedXml('araba', factura('araba', '1'));
    expect(politicaEn(alta)).toEqual({ ...POLITICAS_FIRMA.araba, spuri: POLITICAS_FIRMA.araba.identificador });
    expect(engine.context.config.ticketbai.politicasFirma.bizkaia).toEqual(POLITICAS_FIRMA.bizkaia);
  });
});
