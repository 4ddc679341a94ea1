import { beforeEach, describe, expect, it } from 'vitest';
import { validNif, validPersonNif } from '../../../engine/emulators/aeat/nif';
import type { AltaOptions, BuiltRecord } from './builders';
import { ChainBuilder, buildEnvelope } from './builders';
import type { EnvelopeOptions, Harness, ParsedRespuesta } from './helpers';
import { DEMO, T0, sendBatch, useHarness } from './helpers';

// The rules rules.test.ts left to the engine or to nobody (docs/aeat-codes.md): NIF control
// characters (1123, 1290, 1131, 4116/4117), 0 % with recargo (1170), NIF-IVA XI/GB by date
// (1254/1255), rates of up to 2012 (1132/1135), FechaOperacion beyond next year (1125), and a
// cancellation's GeneradoPor/Generador (1224–1231). Hand-made submissions; T0 is 01-03-2025.

let h: Harness;
let chain: ChainBuilder;

useHarness((harness) => (h = harness));
beforeEach(() => {
  chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
});

const send = (records: BuiltRecord[], envelope?: EnvelopeOptions): Promise<ParsedRespuesta> => sendBatch(h, records, envelope);

async function verdictOf(o: Partial<AltaOptions>): Promise<{ estado: string; codigo: number | null }> {
  const l = (await send([chain.alta(o)])).lineas[0]!;
  return { estado: l.estado, codigo: l.codigo };
}

const S1 = (tipo: string, base: string, cuota: string, recargo?: [string, string]): string =>
  `<sum1:DetalleDesglose><sum1:Impuesto>01</sum1:Impuesto><sum1:ClaveRegimen>01</sum1:ClaveRegimen><sum1:CalificacionOperacion>S1</sum1:CalificacionOperacion>` +
  `<sum1:TipoImpositivo>${tipo}</sum1:TipoImpositivo><sum1:BaseImponibleOimporteNoSujeto>${base}</sum1:BaseImponibleOimporteNoSujeto><sum1:CuotaRepercutida>${cuota}</sum1:CuotaRepercutida>` +
  (recargo ? `<sum1:TipoRecargoEquivalencia>${recargo[0]}</sum1:TipoRecargoEquivalencia><sum1:CuotaRecargoEquivalencia>${recargo[1]}</sum1:CuotaRecargoEquivalencia>` : '') +
  `</sum1:DetalleDesglose>`;
const otro = (pais: string | null, type: string, id: string): string =>
  `<sum1:Destinatarios><sum1:IDDestinatario><sum1:NombreRazon>Cliente</sum1:NombreRazon><sum1:IDOtro>` +
  (pais ? `<sum1:CodigoPais>${pais}</sum1:CodigoPais>` : '') +
  `<sum1:IDType>${type}</sum1:IDType><sum1:ID>${id}</sum1:ID></sum1:IDOtro></sum1:IDDestinatario></sum1:Destinatarios>`;
const fechaOperacion = (d: string): string => `<sum1:FechaOperacion>${d}</sum1:FechaOperacion>`;

describe('the NIF control character', () => {
  it('computes DNI, NIE, K/L/M and legal entities\' control characters', () => {
    for (const ok of ['12345678Z', '00000000T', 'X1234567L', 'Y1234567X', 'Z1234567R', 'K1234567L', 'B12345674', 'A58818501', 'P2807900B', 'Q2826000H', 'G12345674']) {
      expect(validNif(ok), ok).toBe(true);
    }
    for (const bad of ['12345678A', 'X1234567A', 'B12345675', 'P2807900C', 'P28079002', 'A5881850A', 'I12345674', '1234567Z', 'B1234567']) {
      expect(validNif(bad), bad).toBe(false);
    }
    expect(validPersonNif('12345678Z')).toBe(true);
    expect(validPersonNif('B12345674')).toBe(false);
  });

  it('1123: a recipient\'s or a tercero\'s NIF with a wrong control character', async () => {
    expect(await verdictOf({ destinatarioNif: '12345678A' })).toEqual({ estado: 'Incorrecto', codigo: 1123 });
    expect(await verdictOf({ destinatarioNif: '12345678Z' })).toMatchObject({ estado: 'Correcto' });
    const tercero = (nif: string): Partial<AltaOptions> => ({
      destinatarioNif: '12345678Z',
      afterDescripcion:
        '<sum1:EmitidaPorTerceroODestinatario>T</sum1:EmitidaPorTerceroODestinatario>' +
        `<sum1:Tercero><sum1:NombreRazon>Gestor</sum1:NombreRazon><sum1:NIF>${nif}</sum1:NIF></sum1:Tercero>`,
    });
    expect(await verdictOf(tercero('A5881850A'))).toEqual({ estado: 'Incorrecto', codigo: 1123 });
    expect(await verdictOf(tercero('A58818501'))).toMatchObject({ estado: 'Correcto' });
  });

  it('1290 / 1131: an IDOtro "No censado" (07) must hold a natural person\'s NIF', async () => {
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('ES', '07', 'X1234567A') })).toEqual({ estado: 'Incorrecto', codigo: 1290 });
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('ES', '07', 'B12345674') })).toEqual({ estado: 'Incorrecto', codigo: 1131 });
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('ES', '07', 'X1234567L') })).toMatchObject({ estado: 'Correcto' });
  });

  it('4116 / 4117: the Cabecera\'s ObligadoEmision or Representante NIF with a wrong control character refuses the request', async () => {
    const fault = async (xml: string): Promise<number> => {
      h.clock.advance(60);
      const r = await h.post(xml);
      expect(r.status).toBe(500);
      return Number(/<faultstring>Codigo\[(\d+)\]/.exec(r.text)?.[1]);
    };
    const bad = new ChainBuilder('B12345675', new Date(T0 - 3600_000));
    expect(await fault(buildEnvelope({ obligado: { nif: 'B12345675', nombre: DEMO.nombre }, records: [bad.alta()] }))).toBe(4116);
    expect(await fault(buildEnvelope({ obligado: DEMO, representante: { nif: '12345678A', nombre: 'ASESOR' }, records: [chain.alta()] }))).toBe(4117);
    expect(h.emu.ledger.countRecords()).toBe(0);
  });
});

describe('rates, recargo and dates', () => {
  it('1170: a 0 % rate takes only a 0.26 recargo from 01-10-2024', async () => {
    expect(await verdictOf({ destinatarioNif: '12345678Z', desgloseXml: S1('0', '100.00', '0', ['0.5', '0.50']), cuotaTotal: '0.50', importeTotal: '100.50' })).toEqual({ estado: 'Incorrecto', codigo: 1170 });
    expect(await verdictOf({ destinatarioNif: '12345678Z', desgloseXml: S1('0', '100.00', '0', ['0.26', '0.26']), cuotaTotal: '0.26', importeTotal: '100.26' })).toMatchObject({ estado: 'Correcto' });
  });

  it('1132 / 1135: 16/18/7/8 % and a 4 % recargo only for operations of 2012 or before', async () => {
    expect(await verdictOf({ lines: [{ base: '100.00', tipo: '18', cuota: '18.00' }], cuotaTotal: '18.00', importeTotal: '118.00' })).toEqual({ estado: 'Incorrecto', codigo: 1132 });
    expect(await verdictOf({ lines: [{ base: '100.00', tipo: '18', cuota: '18.00' }], cuotaTotal: '18.00', importeTotal: '118.00', afterTipoFactura: fechaOperacion('15-06-2012') })).toMatchObject({ estado: 'Correcto' });
    expect(await verdictOf({ destinatarioNif: '12345678Z', desgloseXml: S1('21', '100.00', '21.00', ['4', '4.00']), cuotaTotal: '25.00', importeTotal: '125.00' })).toEqual({ estado: 'Incorrecto', codigo: 1135 });
    expect(
      await verdictOf({ destinatarioNif: '12345678Z', desgloseXml: S1('18', '100.00', '18.00', ['4', '4.00']), cuotaTotal: '22.00', importeTotal: '122.00', afterTipoFactura: fechaOperacion('15-06-2012') }),
    ).toMatchObject({ estado: 'Correcto' });
  });

  it('1125: FechaOperacion after the end of next year', async () => {
    const ahead = { destinatarioNif: 'P2807900B', desgloseXml: S1('21', '100.00', '21.00').replace('<sum1:ClaveRegimen>01', '<sum1:ClaveRegimen>14') };
    expect(await verdictOf({ ...ahead, afterTipoFactura: fechaOperacion('01-01-2027') })).toEqual({ estado: 'Incorrecto', codigo: 1125 });
    // The last day of next year is admitted (the public body's NIF is not in the emulator's census: 2001, admissible).
    expect((await verdictOf({ ...ahead, afterTipoFactura: fechaOperacion('31-12-2026') })).estado).not.toBe('Incorrecto');
  });

  it('1254 / 1255: NIF-IVA XI only from 2021, GB only up to 31-01-2021', async () => {
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('GB', '02', 'GB123456789') })).toEqual({ estado: 'Incorrecto', codigo: 1255 });
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('GB', '02', 'XI123456789') })).toMatchObject({ estado: 'Correcto' });
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('GB', '02', 'XI123456789'), afterTipoFactura: fechaOperacion('31-12-2020') })).toEqual({ estado: 'Incorrecto', codigo: 1254 });
    expect(await verdictOf({ tipoFactura: 'F1', destinatariosXml: otro('GB', '02', 'GB123456789'), afterTipoFactura: fechaOperacion('31-12-2020') })).toMatchObject({ estado: 'Correcto' });
  });
});

describe('GeneradoPor / Generador of a cancellation (Validaciones §3.1.4)', () => {
  const generador = (inner: string): string => `<sum1:Generador><sum1:NombreRazon>Generador</sum1:NombreRazon>${inner}</sum1:Generador>`;
  const idOtro = (pais: string, type: string, id: string): string =>
    `<sum1:IDOtro><sum1:CodigoPais>${pais}</sum1:CodigoPais><sum1:IDType>${type}</sum1:IDType><sum1:ID>${id}</sum1:ID></sum1:IDOtro>`;

  async function cancel(extra: string): Promise<{ estado: string; codigo: number | null }> {
    const alta = chain.alta();
    await send([alta]);
    const rec = chain.anulacion(alta.id);
    const xml = rec.xml.replace('<sum1:Encadenamiento>', `${extra}<sum1:Encadenamiento>`);
    const l = (await send([{ ...rec, xml }])).lineas[0]!;
    return { estado: l.estado, codigo: l.codigo };
  }

  it.each([
    ['1224: GeneradoPor without Generador', '<sum1:GeneradoPor>E</sum1:GeneradoPor>', 1224],
    ['1224: Generador without GeneradoPor', generador('<sum1:NIF>A58818501</sum1:NIF>'), 1224],
    ['1227: GeneradoPor E without a NIF', '<sum1:GeneradoPor>E</sum1:GeneradoPor>' + generador(idOtro('FR', '04', 'X99')), 1227],
    ['1123: the Generador\'s NIF with a wrong control character', '<sum1:GeneradoPor>D</sum1:GeneradoPor>' + generador('<sum1:NIF>A5881850A</sum1:NIF>'), 1123],
    ['1229: GeneradoPor T with IDType 07', '<sum1:GeneradoPor>T</sum1:GeneradoPor>' + generador(idOtro('ES', '07', '12345678Z')), 1229],
    ['1230: GeneradoPor D, CodigoPais ES, IDType 04', '<sum1:GeneradoPor>D</sum1:GeneradoPor>' + generador(idOtro('ES', '04', 'X99')), 1230],
    ['1231: GeneradoPor T, CodigoPais ES, IDType 04', '<sum1:GeneradoPor>T</sum1:GeneradoPor>' + generador(idOtro('ES', '04', 'X99')), 1231],
  ] as const)('%s', async (_name, extra, code) => {
    expect(await cancel(extra)).toEqual({ estado: 'Incorrecto', codigo: code });
  });

  it('1225 / 1228 (a GeneradoPor outside E/D/T, a Generador with both NIF and IDOtro): the XSD refuses the request first (4102)', async () => {
    for (const extra of [
      '<sum1:GeneradoPor>X</sum1:GeneradoPor>' + generador('<sum1:NIF>A58818501</sum1:NIF>'),
      '<sum1:GeneradoPor>D</sum1:GeneradoPor>' + generador('<sum1:NIF>A58818501</sum1:NIF>' + idOtro('FR', '04', 'X99')),
    ]) {
      const rec = chain.anulacion({ emisor: DEMO.nif, numSerie: 'ANY', fecha: '01-03-2025' });
      h.clock.advance(60);
      const r = await h.post(buildEnvelope({ obligado: DEMO, records: [rec.xml.replace('<sum1:Encadenamiento>', `${extra}<sum1:Encadenamiento>`)] }));
      expect(r.status).toBe(500);
      expect(r.text).toContain('Codigo[4102]');
    }
  });

  it('a cancellation generated by the recipient or a third party, well identified, is Correcto', async () => {
    expect(await cancel('<sum1:GeneradoPor>D</sum1:GeneradoPor>' + generador('<sum1:NIF>A58818501</sum1:NIF>'))).toMatchObject({ estado: 'Correcto' });
    expect(await cancel('<sum1:GeneradoPor>T</sum1:GeneradoPor>' + generador(idOtro('ES', '03', 'PAS123')))).toMatchObject({ estado: 'Correcto' });
  });
});
