// Issuing hot path, in process: zod parse of the crear body + AEAT local rules + RegistroAlta
// (hash and XML), chained record after record. Run: npx tsx test/bench/verifactu-record.ts
import { pathToFileURL } from 'node:url';
import { verifactuCrearBody } from '../../src-shared/api/verifactu';
import { fechaLocalDdMmAaaa } from '../../engine/src/verifactu/fecha-hora';
import { buildRegistroAlta, type RegistroAnterior } from '../../engine/src/verifactu/registro';
import { validarAlta } from '../../engine/src/verifactu/reglas';
import { aDetalle, aFacturaF1, aFacturaF2, aSistemaInformatico } from '../fixtures/verifactu';

export interface BenchResult {
  recordsPerSecond: number;
  records: number;
  milliseconds: number;
}

export async function benchVerifactuRecord(records = 100_000): Promise<BenchResult> {
  const sistema = aSistemaInformatico();
  // Bodies as they arrive from JSON.parse: a mix of tickets and complete invoices.
  const bodies: unknown[] = [
    JSON.parse(JSON.stringify(aFacturaF2())),
    JSON.parse(JSON.stringify(aFacturaF1())),
    JSON.parse(
      JSON.stringify(
        aFacturaF1({
          detalleDesglose: [aDetalle(), aDetalle({ tipoImpositivo: '10', baseImponible: '50', cuotaRepercutida: '5' })],
          totales: { cuotaTotal: '26.00', importeTotal: '176.00' },
        }),
      ),
    ),
  ];
  const start = new Date('2026-03-02T10:15:00Z').getTime();

  const run = (n: number): number => {
    let anterior: RegistroAnterior | null = null;
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const body = verifactuCrearBody.parse(bodies[i % bodies.length]);
      body.cabecera.numero = String(i);
      const generadoEn = new Date(start + i);
      const { errors } = validarAlta(body, { hoy: fechaLocalDdMmAaaa(generadoEn) });
      if (errors.length > 0) throw new Error(`bench body invalid: ${errors[0]?.message ?? ''}`);
      const r = buildRegistroAlta({ factura: body, anterior, generadoEn, sistema });
      anterior = {
        idEmisorFactura: body.emisor.nif,
        numSerieFactura: r.numSerieFactura,
        fechaExpedicionFactura: body.cabecera.fechaExpedicion,
        huella: r.huella,
      };
      bytes += r.xml.length;
    }
    return bytes;
  };

  run(Math.min(20_000, records)); // warm up the JIT
  const t0 = process.hrtime.bigint();
  run(records);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { recordsPerSecond: Math.round((records * 1000) / ms), records, milliseconds: Math.round(ms) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchVerifactuRecord();
  console.log(JSON.stringify(result));
}
