import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countRegistroFactura } from '../../../engine/emulators/aeat/parse';

// The cap of 1000 records is checked on this count before anything is parsed: it must count
// exactly the start tags the XML grammar allows (any prefix of name characters, or none).
const byPattern = (xml: string): number => xml.match(/<(?:[\w.-]+:)?RegistroFactura[\s>]/g)?.length ?? 0;

describe('countRegistroFactura', () => {
  it('counts start tags with or without a prefix, not end tags, longer names or broken prefixes', () => {
    expect(countRegistroFactura('<sum:RegistroFactura><x/></sum:RegistroFactura><RegistroFactura >')).toBe(2);
    expect(countRegistroFactura('<a.b-c_1:RegistroFactura\n><RegistroFacturaX></RegistroFactura>')).toBe(1);
    expect(countRegistroFactura('<:RegistroFactura><a:b:RegistroFactura>RegistroFactura>< a:RegistroFactura>')).toBe(0);
    expect(countRegistroFactura('<sum:RegistroFactura')).toBe(0);
  });

  it('agrees with the grammar on arbitrary text made of the characters that matter', () => {
    const piece = fc.constantFrom('<', '</', ':', 'sum', 'a.b-c', 'ñ', ' ', '\t', '>', 'RegistroFactura', 'RegistroFacturaX', 'x');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (parts) => {
        const xml = parts.join('');
        expect(countRegistroFactura(xml)).toBe(byPattern(xml));
      }),
      { numRuns: 2000 },
    );
  });
});
