// Differential property test of the common-case rule path (engine/src/regimes/verifactu/reglas-comunes.ts):
// validarAlta, which takes it for the everyday sale, against the whole rule table run one rule at a
// time (validarAltaGeneral), on generated invoices around every condition that makes the path fall
// back: other invoice types, a destinatario where none belongs or by IDOtro, especial, rectificativa,
// FechaOperacion, dates around today, 28-10-2024 and twenty years back, lines of other taxes, keys,
// qualifications, rates out of their windows, missing cuotas, recargo, signs, the 10,00 € cuota
// tolerance, the F2 limits and rechazoPrevio; and the rules the path leaves to the table by shape:
// rates of up to 2012 (1132/1135), 0 % with recargo (1170), NIF-IVA XI/GB by date (1254/1255), an
// IDOtro 07 that is no person's NIF (1290/1131). Same errors (campo, code, message, order), same avisos.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { validarAlta, validarAltaGeneral } from '../../../engine/src/regimes/verifactu/reglas';
import { validarAltaComun } from '../../../engine/src/regimes/verifactu/reglas-comunes';
import { buildRegistroAlta, type RegistroAnterior } from '../../../engine/src/regimes/verifactu/record/registro';
import { crearBodyRapido } from '../../../src-shared/api/verifactu-rapido';
import { aFacturaF1, aFacturaF2, aSistemaInformatico, GENERADO_EN, HOY } from '../../fixtures/verifactu';
import { cuotaDe, importeTexto } from './referencia/arbitrarias';
import { validarAltaDecimal } from './referencia/reglas-decimal-vigentes';
import { buildRegistroAltaReferencia } from './referencia/registro-referencia';

const RUNS = Number(process.env.DIFF_RUNS ?? 3000);

/** Line changes that cross one condition of the common path each. */
const CAMBIOS_LINEA = [
  'sin impuesto', 'impuesto 03', 'impuesto 02', 'impuesto 05 con clave', 'clave 02', 'clave 14', 'sin clave', 'S2', 'N1', 'E1',
  'sin tipo', 'sin cuota', 'recargo', 'recargo 4', 'recargo 0.26', 'solo tipo de recargo', 'solo cuota de recargo', 'signo', 'cuota +10.00', 'cuota +10.01', 'cuota -10.01',
] as const;
type CambioLinea = (typeof CAMBIOS_LINEA)[number] | 'ninguno';

/** Invoice-level changes that cross one condition each. */
const CAMBIOS_FACTURA = [
  'F3', 'R1', 'R1 sin rectificativa', 'R5', 'sin destinatario', 'destinatario en F2', 'idOtro', 'idOtro de otro país', 'especial vacío', 'especial',
  'rectificativa', 'fechaOperacion', 'fechaOperacion 2012', 'fechaOperacion 2020', 'idOtro GB', 'idOtro XI', 'idOtro 07', 'idOtro 07 de empresa', 'mañana', '27-10-2024', '28-10-2024', 'rechazoPrevio S', 'rechazoPrevio X',
  'rechazoPrevio S subsanación', 'rechazoPrevio N',
] as const;

const lineaCon = (cambio: CambioLinea) =>
  fc
    .record({
      base: fc.oneof({ weight: 5, arbitrary: fc.bigInt({ min: -20_000n, max: 200_000n }) }, { weight: 1, arbitrary: fc.bigInt({ min: -99_999_999_999_999n, max: 99_999_999_999_999n }) }),
      estilo: fc.integer({ min: 0, max: 4 }),
      // Mostly rates AEAT accepts on any date; 5, 2 and 7.5 only in their windows; 18, 16, 8 and 7 up to 2012; 3 and 12.34 never.
      tipo: fc.constantFrom('21', '21.00', '10', '4', '0', '0.00', '21', '10', '5', '2', '7.5', '7.50', '18', '16.00', '8', '7', '3', '12.34'),
      desvio: fc.constantFrom(0n, 0n, 0n, 1n, -1n, 999n),
    })
    .map((r) => {
      const c = cambio;
      let cuota = cuotaDe(r.base, r.tipo) + r.desvio;
      if (c === 'cuota +10.00') cuota += 1000n;
      else if (c === 'cuota +10.01') cuota += 1001n;
      else if (c === 'cuota -10.01') cuota -= 1001n;
      else if (c === 'signo' && cuota !== 0n) cuota = -cuota;
      const MAX = 99_999_999_999_999n;
      cuota = cuota > MAX ? MAX : cuota < -MAX ? -MAX : cuota;
      const l: Record<string, unknown> = {};
      if (c === 'impuesto 03') l.impuesto = '03';
      else if (c === 'impuesto 02') l.impuesto = '02';
      else if (c === 'impuesto 05 con clave') l.impuesto = '05'; // 1260
      else if (c !== 'sin impuesto') l.impuesto = '01';
      if (c === 'clave 02') l.claveRegimen = '02';
      else if (c === 'clave 14') l.claveRegimen = '14';
      else if (c !== 'sin clave' && c !== 'impuesto 02') l.claveRegimen = '01';
      if (c === 'S2') l.calificacionOperacion = 'S2';
      else if (c === 'N1') l.calificacionOperacion = 'N1';
      else if (c === 'E1') l.operacionExenta = 'E1';
      else l.calificacionOperacion = 'S1';
      l.baseImponible = importeTexto(r.base, r.estilo);
      if (c !== 'sin tipo') l.tipoImpositivo = r.tipo;
      if (c !== 'sin cuota') l.cuotaRepercutida = importeTexto(cuota, r.estilo);
      if (c === 'recargo') {
        l.tipoRecargoEquivalencia = '5.2';
        l.cuotaRecargoEquivalencia = importeTexto(cuotaDe(r.base, '5.2'), 0);
      } else if (c === 'recargo 4' || c === 'recargo 0.26') {
        // 4 %: up to 2012 only (1135); 0.26: with 0 % from 01-10-2024 (1170), or with 2 %.
        const t = c === 'recargo 4' ? '4' : '0.26';
        l.tipoRecargoEquivalencia = t;
        l.cuotaRecargoEquivalencia = importeTexto(cuotaDe(r.base, t), 0);
      } else if (c === 'solo tipo de recargo') l.tipoRecargoEquivalencia = '0'; // 1284
      else if (c === 'solo cuota de recargo') l.cuotaRecargoEquivalencia = '0';
      const recargo = c === 'recargo' ? cuotaDe(r.base, '5.2') : c === 'recargo 4' ? cuotaDe(r.base, '4') : c === 'recargo 0.26' ? cuotaDe(r.base, '0.26') : 0n;
      return { l, base: r.base, cuota, recargo };
    });

/** Up to four everyday lines, one of them changed by a line change, if any. */
const lineas = fc
  .record({ n: fc.integer({ min: 1, max: 4 }), k: fc.nat(), cambio: fc.option(fc.constantFrom(...CAMBIOS_LINEA), { freq: 2, nil: undefined }) })
  .chain(({ n, k, cambio }) => fc.tuple(...Array.from({ length: n }, (_, i) => lineaCon(i === k % n && cambio !== undefined ? cambio : 'ninguno'))));

const HOYES = [HOY, HOY, HOY, '15-11-2024', '31-12-2024', '28-10-2044', '29-10-2044', '02-03-2046'];

const factura = fc
  .record({
    f1: fc.boolean(),
    lineas,
    fechaExpedicion: fc.constantFrom(HOY, HOY, '01-03-2026', '15-11-2024', '28-10-2024', '01-10-2024'),
    hoy: fc.constantFrom(...HOYES),
    cuotaDesvio: fc.constantFrom(0n, 0n, 0n, 1n, -1n, 1000n, 1001n, -1001n),
    totalDesvio: fc.constantFrom(0n, 0n, 0n, 1n, -1n, 1000n, -1000n, 1001n, -1001n),
    // Tickets around 400.00 and AEAT's 3,010.00 (the lines' sum) limits.
    limite: fc.constantFrom(undefined, undefined, 40_000n, 40_001n, 300_000n, 300_001n, 301_000n, 301_001n),
    cambio: fc.option(fc.constantFrom(...CAMBIOS_FACTURA), { freq: 2, nil: undefined }),
  })
  .map((r) => {
    const lineas = r.lineas.map((x) => ({ ...x }));
    if (r.limite !== undefined) {
      // One line alone carrying exactly `limite` (base + 21 % cuota, rounded to the cent).
      const base = (r.limite * 100n) / 121n;
      lineas.splice(0, lineas.length, {
        l: { impuesto: '01', claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: importeTexto(base, 0), tipoImpositivo: '21', cuotaRepercutida: importeTexto(r.limite - base, 0) },
        base,
        cuota: r.limite - base,
        recargo: 0n,
      });
    }
    let base = 0n;
    let cuota = 0n;
    let recargo = 0n;
    for (const l of lineas) {
      base += l.base;
      cuota += l.cuota;
      recargo += l.recargo;
    }
    const c = r.cambio;
    let tipoFactura = r.f1 ? 'F1' : 'F2';
    if (c === 'F3' || c === 'R1' || c === 'R5') tipoFactura = c;
    if (c === 'R1 sin rectificativa') tipoFactura = 'R1'; // 1114
    const conDestinatario = (tipoFactura !== 'F2' && tipoFactura !== 'R5' && c !== 'sin destinatario') || c === 'destinatario en F2';
    const body: Record<string, unknown> = {
      version: '1.0',
      emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
      cabecera: {
        serie: 'T',
        numero: '1',
        fechaExpedicion: c === 'mañana' ? '03-03-2026' : c === '27-10-2024' || c === '28-10-2024' ? c : r.fechaExpedicion,
        tipoFactura,
        descripcion: 'Venta',
        ...(c === 'fechaOperacion' ? { fechaOperacion: '01-03-2026' } : {}),
        ...(c === 'fechaOperacion 2012' ? { fechaOperacion: '31-12-2012' } : {}),
        ...(c === 'fechaOperacion 2020' || c === 'idOtro XI' ? { fechaOperacion: '31-12-2020' } : {}),
      },
    };
    if (conDestinatario) {
      // By IDOtro: a valid NIF-IVA, or one whose prefix is not its country's (1122).
      if (c === 'idOtro') body.destinatario = { nombre: 'Louise', idOtro: { codigoPais: 'FR', idType: '02', id: 'FR52422961982' } };
      else if (c === 'idOtro de otro país') body.destinatario = { nombre: 'Louise', idOtro: { codigoPais: 'DE', idType: '02', id: 'FR52422961982' } };
      else if (c === 'idOtro GB' || c === 'idOtro XI') body.destinatario = { nombre: 'Liam', idOtro: { codigoPais: 'GB', idType: '02', id: c === 'idOtro GB' ? 'GB123456789' : 'XI123456789' } };
      else if (c === 'idOtro 07' || c === 'idOtro 07 de empresa') body.destinatario = { nombre: 'Cliente', idOtro: { codigoPais: 'ES', idType: '07', id: c === 'idOtro 07' ? 'X1234567A' : 'B12345674' } };
      else body.destinatario = { nif: '12345678Z', nombre: 'Cliente' };
    }
    body.detalleDesglose = lineas.map((l) => l.l);
    const MAX = 99_999_999_999_999n;
    const acotar = (x: bigint): bigint => (x > MAX ? MAX : x < -MAX ? -MAX : x);
    body.totales = { cuotaTotal: importeTexto(acotar(cuota + recargo + r.cuotaDesvio), 0), importeTotal: importeTexto(acotar(base + cuota + recargo + r.totalDesvio), 0) };
    if (c === 'especial vacío') body.especial = {};
    if (c === 'especial') body.especial = { facturaSinIdentifDestinatarioArt61d: true };
    if (c === 'rectificativa' || (tipoFactura.startsWith('R') && c !== 'R1 sin rectificativa')) body.rectificativa = { tipo: 'I' };
    const ctx: { hoy: string; subsanacion?: boolean; rechazoPrevio?: 'N' | 'S' | 'X' } = { hoy: r.hoy };
    if (c === 'rechazoPrevio S' || c === 'rechazoPrevio S subsanación') ctx.rechazoPrevio = 'S';
    if (c === 'rechazoPrevio X') ctx.rechazoPrevio = 'X';
    if (c === 'rechazoPrevio N') ctx.rechazoPrevio = 'N';
    if (c === 'rechazoPrevio S subsanación') ctx.subsanacion = true;
    return { body, ctx };
  });

describe('Common-case rule path = the whole rule table', () => {
  it(`${RUNS} generated invoices around every fallback condition: identical errors and avisos`, () => {
    let comunes = 0;
    let comunesConAvisos = 0;
    let generalesSinErrores = 0;
    let generalesConErrores = 0;
    fc.assert(
      fc.property(factura, ({ body, ctx }) => {
        const parsed = verifactuCrearBody.safeParse(body);
        if (!parsed.success) return;
        const general = validarAltaGeneral(parsed.data, ctx);
        expect(validarAlta(parsed.data, ctx)).toEqual(general);
        // And both equal the decimal.js reference the integer-cent table was proven against.
        expect(general).toEqual(validarAltaDecimal(parsed.data, ctx));
        const comun = validarAltaComun(parsed.data, ctx);
        if (comun !== undefined) {
          comunes++;
          if (comun.avisos.length > 0) comunesConAvisos++;
        } else if (general.errors.length === 0) generalesSinErrores++;
        else generalesConErrores++;
      }),
      { numRuns: RUNS },
    );
    // Every side of the boundary is reached: the fast path with and without avisos, the table for
    // valid invoices of another shape and for invoices with errors.
    expect(comunes).toBeGreaterThan(RUNS / 10);
    expect(comunesConAvisos).toBeGreaterThan(RUNS / 50);
    expect(generalesSinErrores).toBeGreaterThan(RUNS / 50);
    expect(generalesConErrores).toBeGreaterThan(RUNS / 10);
  });

  it('takes the everyday ticket and invoice, and leaves an invoice with an error to the table', () => {
    expect(validarAltaComun(aFacturaF2(), { hoy: HOY })).toEqual({ errors: [], avisos: [] });
    expect(validarAltaComun(aFacturaF1(), { hoy: HOY })).toEqual({ errors: [], avisos: [] });
    const conAviso = aFacturaF2({ importeTotal: '12.11' });
    expect(validarAltaComun(conAviso, { hoy: HOY })).toEqual(validarAltaGeneral(conAviso, { hoy: HOY }));
    expect(validarAltaComun(conAviso, { hoy: HOY })?.avisos).toHaveLength(1);
    // 1189: an F1 without destinatario is an error, which only the table words.
    const sinDestinatario = aFacturaF1({ destinatario: undefined });
    expect(validarAltaComun(sinDestinatario, { hoy: HOY })).toBeUndefined();
    expect(validarAlta(sinDestinatario, { hoy: HOY }).errors.map((e) => e.codigo)).toEqual(['1189']);
    // A sale from tomorrow (1112).
    expect(validarAltaComun(aFacturaF2(), { hoy: '01-03-2026' })).toBeUndefined();
  });

  it(`${Math.ceil(RUNS / 3)} generated chains: the hot path (precompiled check, common-case rules, record build) = the reference pipeline (zod, the whole table, the builder as it was)`, () => {
    const sistema = aSistemaInformatico();
    let registros = 0;
    fc.assert(
      fc.property(fc.array(factura, { minLength: 1, maxLength: 4 }), (lote) => {
        let anteriorRapido: RegistroAnterior | null = null;
        let anteriorRef: RegistroAnterior | null = null;
        lote.forEach(({ body, ctx }, i) => {
          const ref = verifactuCrearBody.safeParse(body);
          const rapido = crearBodyRapido(body) ?? verifactuCrearBody.safeParse(body).data;
          expect(rapido).toEqual(ref.data);
          if (!ref.success || rapido === undefined) return;
          const reglas = validarAlta(rapido, ctx);
          expect(reglas).toEqual(validarAltaGeneral(ref.data, ctx));
          if (reglas.errors.length > 0) return;
          const generadoEn = new Date(GENERADO_EN.getTime() + i * 1000);
          const r = buildRegistroAlta({ factura: rapido, anterior: anteriorRapido, generadoEn, sistema });
          const rr = buildRegistroAltaReferencia({ factura: ref.data, anterior: anteriorRef, generadoEn, sistema });
          expect(r).toEqual(rr);
          registros++;
          anteriorRapido = { idEmisorFactura: rapido.emisor.nif, numSerieFactura: r.numSerieFactura, fechaExpedicionFactura: rapido.cabecera.fechaExpedicion, huella: r.huella };
          anteriorRef = { idEmisorFactura: ref.data.emisor.nif, numSerieFactura: rr.numSerieFactura, fechaExpedicionFactura: ref.data.cabecera.fechaExpedicion, huella: rr.huella };
        });
      }),
      { numRuns: Math.ceil(RUNS / 3) },
    );
    expect(registros).toBeGreaterThan(RUNS / 10);
  });
});
