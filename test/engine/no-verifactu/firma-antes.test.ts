// «NO VERI*FACTU» records signed ahead of their transaction on the worker pool (issue 32, speed):
// a signature made ahead is stored only with the very record it signs, built in the transaction
// against the stored head; when the head moved under it (another record took its place) the
// record is built again and signed in the transaction. Either way the chain never forks, no
// record links to one not stored, and every stored signature verifies.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { issuerChainKey, verifactuDeviceChainKey } from '../../../engine/src/devices/chain-keys';
import { DeviceStore } from '../../../engine/src/devices/store';
import { verificarFirma } from '../../../engine/src/no-verifactu/firma';
import { makeTestEngine, type TestEngine } from '../../support/engine';

function factura(nif: string, numero: string, idMaquina?: string) {
  return {
    version: '1.0',
    ...(idMaquina !== undefined ? { idMaquina } : {}),
    emisor: { nif, nombre: 'COMERCIAL DEMO SL' },
    cabecera: { serie: idMaquina ?? 'A', numero, fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Venta' },
    detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
    totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
  };
}

let t: TestEngine;
beforeEach(async () => {
  t = await makeTestEngine();
  const ctx = t.engine.context;
  ctx.noVerifactu.modos.cambiar(ctx.issuers.find('test', t.nifEmisor)!, 'no_verifactu');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await t.close();
});

/** Waits (polling) until `done`, failing after 5 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const crear = (numero: string) => t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, numero) });

/** The chain whole: one record per position, each linked to the stored one before it, every signature valid. */
function expectChainWhole(expected: number) {
  const ctx = t.engine.context;
  const chain = ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor));
  expect(chain).toHaveLength(expected);
  chain.forEach((r, i) => {
    expect(r.chainSeq).toBe(i + 1);
    expect(r.huellaAnterior).toBe(i === 0 ? null : chain[i - 1]!.huella);
    if (i > 0) expect(r.xml).toContain(`<sum1:Huella>${chain[i - 1]!.huella}</sum1:Huella>`);
    expect(r.xml).toContain(`<sum1:Huella>${r.huella}</sum1:Huella>`);
    expect(verificarFirma(r.xml), r.id).toMatchObject({ valid: true });
  });
  // The detector recomputes every huella, link and signature from the stored XML alone.
  const deteccion = ctx.noVerifactu.anomalias.ejecutar(ctx.issuers.find('test', t.nifEmisor)!);
  expect(deteccion).toMatchObject({ registrosAnalizados: expected, anomalias: [] });
  return { chain };
}

describe('signing ahead', () => {
  it('signs concurrent sales off the transaction: none signed there, the chain whole', async () => {
    const firma = t.engine.context.noVerifactu.firma;
    const inTransaction = vi.spyOn(firma, 'firmar');
    const ahead = vi.spyOn(firma, 'firmarAntes');
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => crear(String(i + 1))));
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
    expect(inTransaction).not.toHaveBeenCalled();
    // Grouped: fewer signing jobs than records.
    expect(ahead.mock.calls.length).toBeGreaterThan(0);
    expect(ahead.mock.calls.flatMap((c) => c[1]).length).toBe(24);
    const { chain } = expectChainWhole(24);
    for (const r of chain) expect(r.estadoEnvio).toBe('no_remitida');
    // The answer's huella is the stored record's.
    const huellas = new Set(chain.map((r) => r.huella));
    for (const res of answers) expect(huellas.has(res.json().huella)).toBe(true);
  });

  it("builds and signs the chain's next sales while the first sale's signature is held, and stores them in chain order", async () => {
    const ctx = t.engine.context;
    const firma = ctx.noVerifactu.firma;
    const real = firma.firmarAntes.bind(firma);
    const inTransaction = vi.spyOn(firma, 'firmar');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const groups: number[] = [];
    let signedBack = 0;
    vi.spyOn(firma, 'firmarAntes').mockImplementation(async (entorno, xmls, generadoEn) => {
      const first = groups.length === 0;
      groups.push(xmls.length);
      if (first) await held; // the first group's signatures do not come back until released
      const signed = await real(entorno, xmls, generadoEn);
      if (!first) signedBack += xmls.length;
      return signed;
    });
    const first = crear('1');
    await until(() => groups.length === 1);
    const rest = Array.from({ length: 5 }, (_, i) => crear(String(i + 2)));
    // Every later sale was built against the one before it and signed while the first is held…
    await until(() => signedBack === 5);
    // …and none is stored before it: the first sale's commit comes first.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const key = issuerChainKey('verifactu', 'test', t.nifEmisor);
    expect(ctx.invoices.chain(key)).toEqual([]);
    release();
    const answers = await Promise.all([first, ...rest]);
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
    expect(groups.length).toBeGreaterThanOrEqual(2);
    expect(inTransaction).not.toHaveBeenCalled();
    const { chain } = expectChainWhole(6);
    // Chain order is issuing order: the held sale is the chain's first record.
    expect(chain[0]!.huella).toBe(answers[0]!.json().huella);
  });

  it('signs again in the transaction when another record took the head signed against', async () => {
    expect((await crear('1')).statusCode).toBe(200);
    const firma = t.engine.context.noVerifactu.firma;
    const inTransaction = vi.spyOn(firma, 'firmar');
    const ahead = vi.spyOn(firma, 'firmarAntes');
    // The sales are signed ahead against the head «1»; the cancellation, committed in between (no
    // signature ahead), moves the head: the sales' records are built and signed again there.
    const sales = Array.from({ length: 6 }, (_, i) => crear(String(i + 2)));
    const anulacion = t.billing('POST', '/v1/verifactu/anular', {
      body: { version: '1.0', facturaAnulada: { nifEmisor: t.nifEmisor, serie: 'A', numero: '1', fechaExpedicion: '20-11-2026' } },
    });
    const answers = await Promise.all([...sales, anulacion]);
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
    expect(ahead).toHaveBeenCalled();
    // The cancellation, and at least one sale whose signature made ahead was dropped.
    expect(inTransaction.mock.calls.length).toBeGreaterThanOrEqual(2);
    const { chain } = expectChainWhole(8);
    expect(chain.map((r) => r.tipo).filter((tipo) => tipo === 'anulacion')).toHaveLength(1);
    // No fork: no two records follow the same one.
    expect(new Set(chain.map((r) => r.huellaAnterior)).size).toBe(8);
  });

  it('leaves a sale signed ahead unsigned and queued when the installation went back to VERI*FACTU meanwhile', async () => {
    const ctx = t.engine.context;
    const firma = ctx.noVerifactu.firma;
    const real = firma.firmarAntes.bind(firma);
    vi.spyOn(firma, 'firmarAntes').mockImplementation(async (entorno, xmls, generadoEn) => {
      const signed = await real(entorno, xmls, generadoEn);
      // The mode changes while the signature is out.
      ctx.noVerifactu.modos.cambiar(ctx.issuers.find('test', t.nifEmisor)!, 'verifactu');
      return signed;
    });
    const res = await crear('1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().urlValidacion).not.toContain('NoVerifactu');
    const [registro] = ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor));
    expect(registro!.xml).not.toContain('<ds:Signature');
    expect(registro!.estadoEnvio).not.toBe('no_remitida');
    expect(ctx.db.all(ctx.db.kysely.selectFrom('submission_jobs').select('id'))).toHaveLength(1);
  });

  it('answers 503 and stores nothing when the signature ahead fails', async () => {
    const ctx = t.engine.context;
    vi.spyOn(ctx.noVerifactu.firma, 'firmarAntes').mockRejectedValue(Object.assign(new Error('worker died'), { httpStatus: 503, code: 'WORKER_FAILED' }));
    const res = await crear('1');
    expect(res.statusCode).toBeGreaterThanOrEqual(500);
    expect(ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor))).toEqual([]);
    vi.restoreAllMocks();
    expect((await crear('1')).statusCode).toBe(200);
    expectChainWhole(1);
  });

  it('on devices’ own chains (activa): a device’s first record signs in the transaction (its installation number is assigned there), the next ones ahead', async () => {
    const ctx = t.engine.context;
    const accountId = ctx.issuers.find('test', t.nifEmisor)!.accountId;
    new DeviceStore(ctx.db).setPhase(accountId, t.nifEmisor, 'activa', t.clock.now().toISOString());
    for (const idMaquina of ['CAJA-A', 'CAJA-B']) {
      const res = await t.manage('POST', `/v1/clientes/${t.nifEmisor}/dispositivos`, { body: { idMaquina } });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    const firma = ctx.noVerifactu.firma;
    const inTransaction = vi.spyOn(firma, 'firmar');
    const ventas = (idMaquina: string, desde: number, n: number) =>
      Array.from({ length: n }, (_, i) => t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, String(desde + i), idMaquina) }));
    const primeras = await Promise.all([...ventas('CAJA-A', 1, 1), ...ventas('CAJA-B', 1, 1)]);
    expect(primeras.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(inTransaction).toHaveBeenCalledTimes(2);
    const resto = await Promise.all([...ventas('CAJA-A', 2, 8), ...ventas('CAJA-B', 2, 8)]);
    expect(resto.map((r) => r.statusCode)).toEqual(resto.map(() => 200));
    expect(inTransaction).toHaveBeenCalledTimes(2);
    for (const idMaquina of ['CAJA-A', 'CAJA-B']) {
      const chain = ctx.invoices.chain(verifactuDeviceChainKey('test', t.nifEmisor, idMaquina));
      expect(chain).toHaveLength(9);
      const numero = /<sum1:NumeroInstalacion>([^<]+)</.exec(chain[0]!.xml)?.[1];
      chain.forEach((r, i) => {
        expect(r.huellaAnterior).toBe(i === 0 ? null : chain[i - 1]!.huella);
        expect(r.xml).toContain(`<sum1:NumeroInstalacion>${numero}</sum1:NumeroInstalacion>`);
        expect(verificarFirma(r.xml), r.id).toMatchObject({ valid: true });
      });
    }
    const deteccion = ctx.noVerifactu.anomalias.ejecutar(ctx.issuers.find('test', t.nifEmisor)!);
    expect(deteccion).toMatchObject({ registrosAnalizados: 18, anomalias: [] });
  });
});
