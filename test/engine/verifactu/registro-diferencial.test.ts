// Differential property test of the RegistroAlta builder: the production builder (literal tags,
// one escaping scan, the hash string built from the fields in order, cached SistemaInformatico
// block) against the reference builder as it was (referencia/registro-referencia.ts), on generated
// invoices of every kind, chained or first, with and without subsanación, in both zones: same
// huella, same XML, same result. And the two pieces it relies on against their plain definitions.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifactuCrearBody } from '../../../src-shared/api/verifactu';
import { tipoCanonico } from '../../../engine/src/issuing/importes';
import { buildRegistroAlta, buildRegistroAnulacion, type RegistroAnterior } from '../../../engine/src/regimes/verifactu/record/registro';
import { escapeXml } from '../../../engine/src/regimes/verifactu/record/xml-escape';
import { aSistemaInformatico } from '../../fixtures/verifactu';
import { cuerpoCrear } from './referencia/arbitrarias';
import { buildRegistroAltaReferencia } from './referencia/registro-referencia';

const RUNS = Number(process.env.DIFF_RUNS ?? 3000);

const texto = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('Ferretería López & Hijos, S.L.', 'COMERCIAL DEMO SL', "d'Ors <x> \"y\"", 'a\r\nb', ' espacios ') },
  { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: fc.constantFrom('a', 'Ñ', '&', '<', '>', '"', "'", '\r', '\n', ' ', '€', '&amp;') }) },
);

const anterior: fc.Arbitrary<RegistroAnterior | null> = fc.option(
  fc.record({
    idEmisorFactura: fc.constantFrom('B12345674', '12345678Z'),
    numSerieFactura: fc.constantFrom('T000122', 'A&B<1>', "S'1\"", 'X'.repeat(60)),
    fechaExpedicionFactura: fc.constantFrom('01-03-2026', '31-12-2025'),
    huella: fc.stringMatching(/^[0-9A-F]{64}$/),
  }),
  { freq: 4, nil: null },
);

// Instants across years, DST changes included (last Sundays of March and October).
const generadoEn = fc.oneof(
  fc.date({ min: new Date('2024-10-28T00:00:00Z'), max: new Date('2030-12-31T23:59:59Z'), noInvalidDate: true }),
  fc.constantFrom(new Date('2026-03-29T00:59:59Z'), new Date('2026-03-29T01:00:00Z'), new Date('2026-10-25T00:59:59Z'), new Date('2026-10-25T01:00:00Z')),
);

describe('RegistroAlta builder = the reference builder', () => {
  it(`${RUNS} generated invoices: same huella, XML and result`, () => {
    const sistemas = [aSistemaInformatico(), aSistemaInformatico({ nombreRazon: 'Till & Co <S.L.>', version: ' 1.2 ' })];
    let construidos = 0;
    fc.assert(
      fc.property(
        cuerpoCrear,
        anterior,
        generadoEn,
        fc.record(
          {
            zona: fc.constantFrom('Europe/Madrid', 'Atlantic/Canary'),
            emisorNombre: texto,
            subsanacion: fc.record({ rechazoPrevio: fc.constantFrom('N', 'S', 'X') }, { requiredKeys: [] }),
            incidencia: fc.boolean(),
            sistema: fc.constantFrom(0, 1),
            // A series with XML metacharacters (the schema allows any printable ASCII).
            serie: fc.constantFrom('A&B<', "S'\"", 'T>'),
          },
          { requiredKeys: ['sistema'] },
        ),
        (body, ant, fecha, extra) => {
          const cabecera = body.cabecera as Record<string, unknown>;
          const conSerie = extra.serie === undefined ? body : { ...body, cabecera: { ...cabecera, serie: extra.serie } };
          const parsed = verifactuCrearBody.safeParse(conSerie);
          if (!parsed.success) return;
          const input = {
            factura: parsed.data,
            anterior: ant,
            generadoEn: fecha,
            sistema: sistemas[extra.sistema] ?? aSistemaInformatico(),
            ...(extra.zona !== undefined ? { zona: extra.zona } : {}),
            ...(extra.emisorNombre !== undefined ? { emisorNombre: extra.emisorNombre } : {}),
            ...(extra.subsanacion !== undefined ? { subsanacion: extra.subsanacion } : {}),
            ...(extra.incidencia !== undefined ? { incidencia: extra.incidencia } : {}),
          };
          expect(buildRegistroAlta(input)).toEqual(buildRegistroAltaReferencia(input));
          construidos++;
        },
      ),
      { numRuns: RUNS },
    );
    expect(construidos).toBeGreaterThan(RUNS / 4);
  });

  it('RegistroAnulacion keeps its SistemaInformatico, FechaHoraHusoGenRegistro, TipoHuella and Huella', () => {
    const sistema = aSistemaInformatico({ nombreRazon: 'Till & Co' });
    const r = buildRegistroAnulacion({
      facturaAnulada: { nifEmisor: 'B12345674', numero: '7', fechaExpedicion: '01-03-2026' },
      anterior: null,
      generadoEn: new Date('2026-03-02T10:15:00Z'),
      sistema,
    });
    expect(r.xml).toContain(
      '<sum1:IndicadorMultiplesOT>N</sum1:IndicadorMultiplesOT></sum1:SistemaInformatico>' +
        '<sum1:FechaHoraHusoGenRegistro>2026-03-02T11:15:00+01:00</sum1:FechaHoraHusoGenRegistro>' +
        '<sum1:TipoHuella>01</sum1:TipoHuella><sum1:Huella>' + r.huella + '</sum1:Huella></sum1:RegistroAnulacion>',
    );
    expect(r.xml).toContain('<sum1:NombreRazon>Till &amp; Co</sum1:NombreRazon>');
  });
});

describe('escapeXml = one replace of the five XML metacharacters and CR', () => {
  const ENTIDADES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };
  const referencia = (s: string): string => s.replace(/[&<>"'\r]/g, (c) => ENTIDADES[c] ?? c);
  it('on arbitrary text, metacharacters anywhere (first, last, repeated, adjacent)', () => {
    const unidad = fc.oneof(fc.constantFrom('&', '<', '>', '"', "'", '\r', '\n', '=', '?', '@', 'a', 'ñ', '€', '\u{1F600}'), fc.string({ maxLength: 1 }));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 60, unit: unidad }), fc.string({ maxLength: 60, unit: 'grapheme' })), (s) => {
        expect(escapeXml(s)).toBe(referencia(s));
      }),
      { numRuns: RUNS },
    );
    expect(escapeXml('')).toBe('');
    expect(escapeXml('&')).toBe('&amp;');
    expect(escapeXml('a<b>&"c\'\r')).toBe('a&lt;b&gt;&amp;&quot;c&apos;&#13;');
  });
});

describe('tipoCanonico = the rate with two decimals and no leading zeros', () => {
  it('on every spelling the schema accepts', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,3}(\.\d{1,2})?$/), (t) => {
        const [int = '', frac = ''] = t.split('.');
        const esperado = `${String(Number(int))}.${frac.padEnd(2, '0')}`;
        expect(tipoCanonico(t)).toBe(esperado);
      }),
      { numRuns: RUNS },
    );
    expect(() => tipoCanonico('1e2')).toThrow(RangeError);
    expect(() => tipoCanonico('21.')).toThrow(RangeError);
  });
});
