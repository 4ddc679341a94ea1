// Differential property test of the issuing hot path: the precompiled crear check
// (src-shared/api/verifactu-rapido.ts) against the zod schema, and the whole pipeline
// (parse + rules + RegistroAlta) against the reference one (zod + the decimal.js rules), on
// generated bodies valid and invalid.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { crearBodyRapido } from '../../../src-shared/api/verifactu-rapido';
import { buildRegistroAlta, type RegistroAnterior } from '../../../engine/src/regimes/verifactu/record/registro';
import { validarAlta } from '../../../engine/src/regimes/verifactu/reglas';
import { aFacturaF1, aFacturaF2, aSistemaInformatico, GENERADO_EN } from '../../fixtures/verifactu';
import { contexto, cuerpoCrear, cuerpoCrearQuizaRoto } from './referencia/arbitrarias';
import { validarAltaDecimal } from './referencia/reglas-decimal-vigentes';

const RUNS = Number(process.env.DIFF_RUNS ?? 3000);

describe('Precompiled crear check = the zod schema', () => {
  it(`${RUNS} generated bodies, valid and broken: it accepts only what zod accepts, with zod's exact output`, () => {
    let rapidos = 0;
    let rechazadosPorZod = 0;
    fc.assert(
      fc.property(cuerpoCrearQuizaRoto, (body) => {
        const rapido = crearBodyRapido(body);
        const zod = verifactuCrearBody.safeParse(body);
        if (!zod.success) rechazadosPorZod++;
        if (rapido === undefined) return;
        rapidos++;
        expect(zod.success).toBe(true);
        // Same values and the same key order (the stored JSON and anything serialised from it).
        expect(JSON.stringify(rapido)).toBe(JSON.stringify(zod.data));
        expect(rapido).toEqual(zod.data);
        // A new object, never the input itself (as zod).
        expect(rapido).not.toBe(body);
      }),
      { numRuns: RUNS },
    );
    expect(rapidos).toBeGreaterThan(RUNS / 10);
    expect(rechazadosPorZod).toBeGreaterThan(RUNS / 10);
  });

  it('takes the common ticket and invoice to a NIF; leaves the rest to zod', () => {
    const ticket = JSON.parse(JSON.stringify(aFacturaF2({ idMaquina: 'TPV-1', aux: { refExterna: 'R1' } }))) as unknown;
    expect(crearBodyRapido(ticket)).toEqual(verifactuCrearBody.parse(ticket));
    const f1 = JSON.parse(JSON.stringify(aFacturaF1())) as unknown;
    expect(crearBodyRapido(f1)).toEqual(verifactuCrearBody.parse(f1));
    for (const [nombre, cambio] of [
      ['especial', { especial: { cupon: true } }],
      ['unknown key', { otro: 1 }],
      ['JSON number amount', { totales: { cuotaTotal: 2.1, importeTotal: '12.10' } }],
      ['exponent', { totales: { cuotaTotal: '2.1e0', importeTotal: '12.10' } }],
      ['3 decimals', { totales: { cuotaTotal: '2.100', importeTotal: '12.10' } }],
      ['no lines', { detalleDesglose: [] }],
      ['13 lines', { detalleDesglose: Array.from({ length: 13 }, () => (ticket as { detalleDesglose: unknown[] }).detalleDesglose[0]) }],
    ] as const) {
      expect(crearBodyRapido({ ...(ticket as object), ...cambio }), nombre).toBeUndefined();
    }
    const conProto = JSON.parse('{"__proto__": {"x": 1}, "version": "1.0"}') as unknown;
    expect(crearBodyRapido(conProto)).toBeUndefined();
  });
});

describe('Hot path pipeline = the reference pipeline (zod, decimal.js rules)', () => {
  it(`${RUNS} generated bodies: same errors, avisos, huella chain and XML`, () => {
    const sistema = aSistemaInformatico();
    let registros = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(cuerpoCrear, contexto), { minLength: 1, maxLength: 4 }), (lote) => {
        let anteriorNuevo: RegistroAnterior | null = null;
        let anteriorRef: RegistroAnterior | null = null;
        lote.forEach(([body, ctx], i) => {
          const ref = verifactuCrearBody.safeParse(body);
          const nuevo = crearBodyRapido(body) ?? verifactuCrearBody.safeParse(body).data;
          expect(nuevo).toEqual(ref.data);
          if (!ref.success || nuevo === undefined) return;
          const reglas = validarAlta(nuevo, ctx);
          expect(reglas).toEqual(validarAltaDecimal(ref.data, ctx));
          if (reglas.errors.length > 0) return;
          const generadoEn = new Date(GENERADO_EN.getTime() + i * 1000);
          const rn = buildRegistroAlta({ factura: nuevo, anterior: anteriorNuevo, generadoEn, sistema });
          const rr = buildRegistroAlta({ factura: ref.data, anterior: anteriorRef, generadoEn, sistema });
          expect(rn).toEqual(rr);
          registros++;
          const siguiente = (f: typeof nuevo, r: typeof rn): RegistroAnterior => ({
            idEmisorFactura: f.emisor.nif, numSerieFactura: r.numSerieFactura, fechaExpedicionFactura: f.cabecera.fechaExpedicion, huella: r.huella,
          });
          anteriorNuevo = siguiente(nuevo, rn);
          anteriorRef = siguiente(ref.data, rr);
        });
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
    expect(registros).toBeGreaterThan(RUNS / 20);
  });
});
