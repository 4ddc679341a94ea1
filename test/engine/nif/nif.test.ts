import { describe, expect, it } from 'vitest';
import { classifyNif, isPersonaFisica, normalizeNif, validateNif } from '../../../src-shared/nif';
import type { NifKind } from '../../../src-shared/nif';

// Every ID below was taken from a public source, cited per group. Raw spellings (separators,
// lower case, ES prefix) are kept as the source wrote them: normalisation is part of the test.
type Caso = { raw: string; kind: NifKind };
type Invalido = { raw: string; why: 'length' | 'format' | 'check' };

const VALID: Caso[] = [
  // AEAT, "Veri-Factu_especificaciones_huella_hash_registros" worked examples (IDEmisorFactura),
  // also used in DetalleEspecificacTecnCodigoQRfactura and EspecTecGenerFirmaElectRfact
  // (reference corpus: docs/verifactu/).
  { raw: '89890001K', kind: 'dni' },
  // AEAT, EspecTecGenerFirmaElectRfact (IDDestinatario) and Veri-Factu_Descripcion_SWeb (NIFPresentador).
  { raw: '89890002E', kind: 'dni' },

  // Gipuzkoa official TicketBAI 1.2.2 examples (Emisor / developer NIF),
  // reference corpus: ticketbai/examples/gipuzkoa-official-1_2_2/TicketBAI_Alta_Faktura__*.xml
  { raw: '99999974E', kind: 'dni' },
  { raw: 'P2000000F', kind: 'cif' },
  // Zuzendu official examples, reference corpus: ticketbai/examples/zuzendu-official-1_2_2/
  // ZuzenduModificar_Adibidea_Ejemplo.xml (Emisor, Destinatario).
  { raw: '99999972C', kind: 'dni' },
  { raw: '12345678Z', kind: 'dni' },
  // TicketBAI identifier example TBAI-00000006Y-251019-… in
  // reference corpus: docs/ticketbai/TicketBAI_Especificaciones_funcionales_y_tecnicas_1_2.txt
  { raw: '00000006Y', kind: 'dni' },

  // reference corpus: verifactu/examples/odoo/batch_single_accepted_registration.xml
  { raw: 'A39200019', kind: 'cif' },
  // reference corpus: verifactu/examples/invopop/inv-base.xml (ObligadoEmision, Destinatario)
  { raw: 'B85905495', kind: 'cif' },
  { raw: 'B63272603', kind: 'cif' },

  // arthurdejong/python-stdnum tests/test_eu_vat.doctest, "found online and should all be valid".
  { raw: 'ES - Q0818001J', kind: 'cif' },
  { raw: 'ES 54362315K', kind: 'dni' },
  { raw: 'ES A-28184661', kind: 'cif' },
  { raw: 'ES A-60631835', kind: 'cif' },
  { raw: 'ES A-60997582', kind: 'cif' },
  { raw: 'ES A08370314', kind: 'cif' },
  { raw: 'ES A17028366', kind: 'cif' },
  { raw: 'ES B-58378431', kind: 'cif' },
  { raw: 'ES B64240914', kind: 'cif' },
  { raw: 'ES B64717838', kind: 'cif' },
  { raw: 'ES B79110482', kind: 'cif' },
  { raw: 'ES B80975063', kind: 'cif' },
  { raw: 'ES F13005293', kind: 'cif' },
  { raw: 'ES J99216582', kind: 'cif' },
  { raw: 'ES Q-2818015-F', kind: 'cif' },
  { raw: 'ES R9600075G', kind: 'cif' },
  { raw: 'ES U99216426', kind: 'cif' },
  { raw: 'ES U99216632', kind: 'cif' },
  { raw: 'ES V99218067', kind: 'cif' },
  { raw: 'ES W4003922D', kind: 'cif' },
  { raw: 'ES X-5253868-R', kind: 'nie' },
  { raw: 'ES X5277343Q', kind: 'nie' },
  { raw: 'ES Y5277343F', kind: 'nie' },
  { raw: 'ES Z5277343K', kind: 'nie' },
  { raw: 'ES- A84409408', kind: 'cif' },
  { raw: 'ES-A08074908', kind: 'cif' },
  { raw: 'ES-B 60432291', kind: 'cif' },
  { raw: 'ES-B18889204', kind: 'cif' },
  { raw: 'ES-B55015432', kind: 'cif' },
  { raw: 'ES-B64995111', kind: 'cif' },
  { raw: 'ES-B96902531', kind: 'cif' },
  { raw: 'ES-x-2482300w', kind: 'nie' },
  { raw: 'ESA78109592', kind: 'cif' },
  { raw: 'Es-a58951310', kind: 'cif' },

  // arthurdejong/python-stdnum tests/test_es_nif.doctest (also test_es_dni/nie/cif.doctest)
  { raw: '11111111H', kind: 'dni' },
  { raw: 'A11111119', kind: 'cif' },
  { raw: 'X1111111G', kind: 'nie' },
  { raw: 'L1111111G', kind: 'klm' },
  // arthurdejong/python-stdnum stdnum/es/cif.py doctests ("valid NIF but not valid CIF"; split example)
  { raw: 'M-1234567-L', kind: 'klm' },
  { raw: 'A13 585 625', kind: 'cif' },

  // python-validators/validators tests/i18n/test_es.py (valid CIF, NIE, NIF and DOI lists)
  { raw: 'B25162520', kind: 'cif' },
  { raw: 'U4839822F', kind: 'cif' },
  { raw: 'B96817697', kind: 'cif' },
  { raw: 'P7067074J', kind: 'cif' },
  { raw: 'Q7899705C', kind: 'cif' },
  { raw: 'C75098681', kind: 'cif' },
  { raw: 'G76061860', kind: 'cif' },
  { raw: 'C71345375', kind: 'cif' },
  { raw: 'G20558169', kind: 'cif' },
  { raw: 'U5021960I', kind: 'cif' },
  { raw: 'X0095892M', kind: 'nie' },
  { raw: 'X8868108K', kind: 'nie' },
  { raw: 'X2911154K', kind: 'nie' },
  { raw: 'Y2584969J', kind: 'nie' },
  { raw: 'X7536157T', kind: 'nie' },
  { raw: 'Y5840388N', kind: 'nie' },
  { raw: 'Z2915723H', kind: 'nie' },
  { raw: 'Y4002236C', kind: 'nie' },
  { raw: 'X7750702R', kind: 'nie' },
  { raw: 'Y0408759V', kind: 'nie' },
  { raw: 'K0000023T', kind: 'klm' },
  { raw: 'L0000024R', kind: 'klm' },
  { raw: 'M0000025W', kind: 'klm' },
  { raw: '00000026A', kind: 'dni' },
  { raw: '00000027G', kind: 'dni' },
  { raw: '00000028M', kind: 'dni' },
  { raw: '00000029Y', kind: 'dni' },
  { raw: '00000030F', kind: 'dni' },
  { raw: '00000031P', kind: 'dni' },
  { raw: '00000032D', kind: 'dni' },
  { raw: '00000033X', kind: 'dni' },
  { raw: '00000034B', kind: 'dni' },
  { raw: '00000035N', kind: 'dni' },
  { raw: '00000036J', kind: 'dni' },
  { raw: '00000037Z', kind: 'dni' },
  { raw: '00000038S', kind: 'dni' },
  { raw: '00000039Q', kind: 'dni' },
  { raw: '00000040V', kind: 'dni' },
  { raw: '00000041H', kind: 'dni' },
  { raw: '00000042L', kind: 'dni' },
  { raw: '00000043C', kind: 'dni' },
  { raw: '00000044K', kind: 'dni' },
  { raw: '00000045E', kind: 'dni' },
  { raw: '26643189N', kind: 'dni' },
  { raw: '07060225F', kind: 'dni' },
  { raw: '49166693F', kind: 'dni' },

  // ronanguilloux/IsoCodes tests/IsoCodes/Tests/CifTest.php (valid values; N0032484H "non-resident")
  { raw: 'N0032484H', kind: 'cif' },
  { raw: 'A09212275', kind: 'cif' },
  { raw: 'A59032557', kind: 'cif' },
  { raw: 'A17031246', kind: 'cif' },
  { raw: 'B85358596', kind: 'cif' },
  { raw: 'E61685095', kind: 'cif' },
  { raw: 'V27236942', kind: 'cif' },
  { raw: 'G61685095', kind: 'cif' },
  // ronanguilloux/IsoCodes tests/IsoCodes/Tests/NifTest.php (valid values)
  { raw: '04381012H', kind: 'dni' },
  { raw: '04381012h', kind: 'dni' },
  { raw: '99999999R', kind: 'dni' },
  { raw: 'Z6171167L', kind: 'nie' },
  // ignaciosp82/NIF.NET README.md usage examples
  { raw: 'N7685328B', kind: 'cif' },
  { raw: 'X1234567L', kind: 'nie' },
];

const INVALID: Invalido[] = [
  // AEAT Veri-Factu_Descripcion_SWeb.txt uses A84532509 as a Destinatario/Contraparte placeholder:
  // its control should be 6. Public examples are not proof of validity.
  { raw: 'A84532509', why: 'check' },
  // reference corpus: verifactu/examples/invopop/inv-base.xml (SistemaInformatico NIF): should end in Z.
  { raw: '12345678A', why: 'check' },
  // reference corpus: verifactu/examples/josemmo/registration-record-f1.xml placeholders.
  { raw: '11111111B', why: 'check' },
  { raw: '00000000B', why: 'check' },

  // arthurdejong/python-stdnum tests/test_eu_vat.doctest ("mangled so their check digit is wrong",
  // and "wrong length").
  { raw: 'ES 54362415K', why: 'check' },
  { raw: 'ES K-2814015-F', why: 'check' },
  { raw: 'ES-x-2322300w', why: 'check' },
  { raw: 'Es-a48951310', why: 'check' },
  { raw: 'ES B-583784312', why: 'length' },
  // arthurdejong/python-stdnum tests/test_es_nif.doctest (invalid DNI, CIF, NIE and K/L/M NIF)
  { raw: '11111111T', why: 'check' },
  { raw: 'A11111118', why: 'check' },
  { raw: 'X1111111A', why: 'check' },
  { raw: 'L1111111C', why: 'check' },
  // arthurdejong/python-stdnum module doctests: stdnum/es/cif.py, nif.py, dni.py, nie.py
  { raw: 'J99216583', why: 'check' },
  { raw: 'J992165831', why: 'length' },
  { raw: 'O-1234567-L', why: 'format' },
  { raw: 'B64717839', why: 'check' },
  { raw: '54362315Z', why: 'check' },
  { raw: '54362315', why: 'length' },
  { raw: 'x-2482300a', why: 'check' },
  { raw: 'X2482300', why: 'length' },

  // python-validators/validators tests/i18n/test_es.py (invalid CIF list)
  { raw: '12345', why: 'length' },
  { raw: 'ABCDEFGHI', why: 'format' },
  { raw: 'Z5021960I', why: 'check' },

  // ronanguilloux/IsoCodes tests/IsoCodes/Tests/CifTest.php (invalid values)
  { raw: 'K11111111', why: 'format' },
  { raw: 'L61685095', why: 'format' },
  { raw: 'X61685095', why: 'format' },
  { raw: 'Y61685095', why: 'format' },
  { raw: 'N0032484', why: 'length' },
  { raw: 'N0032484I', why: 'check' },
  { raw: 'M0032484I', why: 'check' },
  { raw: 'M0032484H', why: 'check' },
  // ronanguilloux/IsoCodes tests/IsoCodes/Tests/NifTest.php (invalid values)
  { raw: '12345678', why: 'length' },
  { raw: '9999999L', why: 'length' },
  { raw: '999999999L', why: 'length' },
  { raw: '12345678W', why: 'check' },
  { raw: 'L9999999K', why: 'check' },
  { raw: 'A9999999L', why: 'format' },
];

const WHY_RE: Record<Invalido['why'], RegExp> = {
  length: /9 characters/,
  format: /format|unknown first character/,
  check: /check letter|control/,
};

const ofKind = (kind: NifKind): Caso[] => VALID.filter((c) => c.kind === kind);
const cifWith = (entities: string): Caso[] =>
  ofKind('cif').filter((c) => entities.includes(normalizeNif(c.raw).charAt(0)));
const invalidWithPrefix = (re: RegExp): Invalido[] =>
  INVALID.filter((c) => re.test(normalizeNif(c.raw)));

function expectValid(raw: string, kind: NifKind): void {
  const r = validateNif(raw);
  expect(r, raw).toEqual({ valid: true, kind, normalized: normalizeNif(raw) });
}

function expectInvalid(raw: string, why?: Invalido['why']): string {
  const r = validateNif(raw);
  if (r.valid) throw new Error(`${raw} should be invalid`);
  if (why) expect(r.reason, raw).toMatch(WHY_RE[why]);
  return r.reason;
}

describe('public example tables', () => {
  it('hold at least 40 valid and 20 invalid IDs, without duplicates', () => {
    const valid = new Set(VALID.map((c) => normalizeNif(c.raw)));
    const bad = new Set(INVALID.map((c) => normalizeNif(c.raw)));
    expect(valid.size).toBeGreaterThanOrEqual(40);
    expect(bad.size).toBeGreaterThanOrEqual(20);
    expect([...valid].filter((v) => bad.has(v))).toEqual([]);
  });

  it.each(VALID)('$raw is a valid $kind', ({ raw, kind }) => expectValid(raw, kind));
  it.each(INVALID)('$raw is invalid ($why)', ({ raw, why }) => {
    expectInvalid(raw, why);
  });
});

describe('normalizeNif: trim, upper-case, no spaces/hyphens, no ES prefix', () => {
  it.each([
    ['ES B-58378431', 'B58378431'], // python-stdnum stdnum/es/nif.py compact() doctest
    ['  x-2482300w ', 'X2482300W'],
    ['A13 585 625', 'A13585625'],
    ['ES - Q0818001J', 'Q0818001J'],
    ['es-a58951310', 'A58951310'],
    ['54362315-K', '54362315K'],
    ['\t89890001K\n', '89890001K'],
  ])('%j → %s', (raw, expected) => {
    expect(normalizeNif(raw)).toBe(expected);
  });

  it('is idempotent', () => {
    for (const { raw } of VALID) {
      const once = normalizeNif(raw);
      expect(normalizeNif(once)).toBe(once);
    }
  });

  it('keeps other characters, so they fail validation', () => {
    expect(normalizeNif('B.58378431')).toBe('B.58378431');
    expect(validateNif('B.58378431').valid).toBe(false);
  });
});

describe('DNI: 8 digits + TRWAGMYFPDXBNJZSQVHLCKE[n mod 23]', () => {
  it.each(ofKind('dni'))('accepts $raw', ({ raw }) => expectValid(raw, 'dni'));
  it.each(invalidWithPrefix(/^\d{8}[A-Z]$/))('rejects $raw', ({ raw }) => {
    expect(expectInvalid(raw, 'check')).toMatch(/^DNI check letter should be [A-Z], not [A-Z]$/);
  });

  it('is exercised on all 23 letters of the table (DNI and K/L/M examples together)', () => {
    const direct = [...ofKind('dni'), ...ofKind('klm')];
    const letters = new Set(direct.map((c) => normalizeNif(c.raw).charAt(8)));
    expect([...letters].sort().join('')).toBe([...'TRWAGMYFPDXBNJZSQVHLCKE'].sort().join(''));
  });

  it('names the expected letter', () => {
    // 12345678A: invopop example; 12345678 mod 23 = 14 → Z.
    expect(expectInvalid('12345678A')).toBe('DNI check letter should be Z, not A');
  });

  it('does not reject all-zero or low numbers: the census, not the letter, decides', () => {
    // python-validators tests/i18n/test_es.py rejects these through a deny-list, not the
    // check letter; FACTS.md only asks for the check letter, so they pass here.
    expectValid('00000000T', 'dni');
    expectValid('00000001R', 'dni');
  });
});

describe('NIE: X/Y/Z → 0/1/2, then the DNI rule', () => {
  it.each(ofKind('nie'))('accepts $raw', ({ raw }) => expectValid(raw, 'nie'));
  it.each(invalidWithPrefix(/^[XYZ]\d{7}[A-Z]$/))('rejects $raw', ({ raw }) => {
    expectInvalid(raw, 'check');
  });

  it('maps the prefix to 0, 1 and 2 (same 7 digits, different letters)', () => {
    // python-stdnum test_eu_vat.doctest: X5277343Q, Y5277343F, Z5277343K.
    expectValid('X5277343Q', 'nie');
    expectValid('Y5277343F', 'nie');
    expectValid('Z5277343K', 'nie');
    expect(expectInvalid('X5277343F')).toBe('NIE check letter should be Q, not F');
  });
});

describe('K/L/M: letter + 7 digits + the DNI letter of those 7 digits', () => {
  it.each(ofKind('klm'))('accepts $raw', ({ raw }) => expectValid(raw, 'klm'));
  it.each(invalidWithPrefix(/^[KLM]\d{7}[A-Z]$/))('rejects $raw', ({ raw }) => {
    expectInvalid(raw, 'check');
  });

  it('does not give the prefix a numeric value (unlike the NIE)', () => {
    // K0000023T (python-validators): 23 mod 23 = 0 → T, whatever the prefix letter.
    expectValid('K0000023T', 'klm');
    expectValid('L0000023T', 'klm');
    expectValid('M0000023T', 'klm');
  });

  it('requires a letter as the last character', () => {
    expectInvalid('K11111111', 'format'); // IsoCodes CifTest.php
  });
});

describe('CIF: entity letter ABCDEFGHJNPQRSUVW + 7 digits + control', () => {
  it.each(ofKind('cif'))('accepts $raw', ({ raw }) => expectValid(raw, 'cif'));
  it.each(invalidWithPrefix(/^[ABCDEFGHJNPQRSUVW]\d{7}[0-9A-J]$/))('rejects $raw', ({ raw }) => {
    expectInvalid(raw, 'check');
  });

  it('rejects a first letter outside the entity list', () => {
    expectInvalid('O-1234567-L', 'format'); // python-stdnum stdnum/es/cif.py
    expectInvalid('I1234567J', 'format');
  });

  it('rejects a control letter outside A-J', () => {
    expectInvalid('A9999999L', 'format'); // IsoCodes NifTest.php
  });
});

describe('CIF: control must be a letter for N, P, Q, R, S, W', () => {
  it.each(cifWith('NPQRSW'))('accepts $raw', ({ raw }) => expectValid(raw, 'cif'));

  // Derived (not public): public IDs with the control letter replaced by its equivalent digit.
  it.each([
    ['Q08180010', 'Q0818001J'],
    ['P70670740', 'P7067074J'],
    ['W40039224', 'W4003922D'],
    ['R96000757', 'R9600075G'],
  ])('rejects %s (digit form of %s)', (raw, letterForm) => {
    expectValid(letterForm, 'cif');
    expect(expectInvalid(raw)).toMatch(/must be the letter [A-J] \(entity letter [NPQRSW]\)/);
  });
});

describe('CIF: the control follows the entity letter, whatever the first two digits (Orden EHA/451/2008)', () => {
  it('accepts N0032484H (IsoCodes "non-resident")', () => expectValid('N0032484H', 'cif'));

  it('accepts B00000000 and A00000000 (digits 00 are not a province: A and B take a digit control)', () => {
    expectValid('B00000000', 'cif');
    expectValid('A00000000', 'cif');
    expect(expectInvalid('A0000000J')).toBe('CIF control must be the digit 0 (entity letter A), not J');
  });

  it('rejects N00324848 (derived: digit form of N0032484H)', () => {
    expectInvalid('N00324848', 'check');
  });
});

describe('CIF: control must be a digit for A, B, E, H', () => {
  it.each(cifWith('ABEH'))('accepts $raw', ({ raw }) => expectValid(raw, 'cif'));

  // Derived (not public): public IDs with the control digit replaced by its equivalent letter.
  it.each([
    ['A5895131J', 'A58951310'],
    ['B8590549E', 'B85905495'],
    ['E6168509E', 'E61685095'],
    ['A1111111I', 'A11111119'],
  ])('rejects %s (letter form of %s)', (raw, digitForm) => {
    expectValid(digitForm, 'cif');
    expect(expectInvalid(raw)).toMatch(/must be the digit \d \(entity letter [ABEH]\)/);
  });
});

describe('CIF: control may be digit or letter for C, D, F, G, J, U, V', () => {
  const either = cifWith('CDFGJUV');
  it('has public examples with both forms', () => {
    const last = either.map((c) => normalizeNif(c.raw).charAt(8));
    expect(last.some((ch) => /\d/.test(ch))).toBe(true);
    expect(last.some((ch) => /[A-J]/.test(ch))).toBe(true);
  });
  it.each(either)('accepts $raw', ({ raw }) => expectValid(raw, 'cif'));

  // Derived: the other form of public IDs (F13005293, J99216582, U5021960I, G76061860).
  it.each(['F1300529C', 'J9921658B', 'U50219609', 'G7606186J'])('accepts %s', (raw) => {
    expectValid(raw, 'cif');
  });

  it('still rejects a wrong control, naming both forms', () => {
    expect(expectInvalid('J99216583')).toBe('CIF control should be 2 or B, not 3');
  });
});

describe('classifyNif: by shape only', () => {
  it.each(VALID)('$raw → $kind', ({ raw, kind }) => {
    expect(classifyNif(raw)).toBe(kind);
  });

  it('classifies invalid check characters by their shape', () => {
    expect(classifyNif('12345678A')).toBe('dni');
    expect(classifyNif('X1111111A')).toBe('nie');
    expect(classifyNif('L1111111C')).toBe('klm');
    expect(classifyNif('A84532509')).toBe('cif');
  });

  it.each(['', '12345', 'ABCDEFGHI', 'K11111111', 'O1234567L', 'X61685095', '999999999L'])(
    '%j → null',
    (raw) => {
      expect(classifyNif(raw)).toBeNull();
    },
  );
});

describe('isPersonaFisica: DNI, NIE and K/L/M', () => {
  it.each(VALID)('$raw ($kind)', ({ raw, kind }) => {
    expect(isPersonaFisica(raw)).toBe(kind !== 'cif');
  });

  it('is false for what is not a NIF', () => {
    expect(isPersonaFisica('')).toBe(false);
    expect(isPersonaFisica('ABCDEFGHI')).toBe(false);
  });
});

describe('validateNif: length and format errors', () => {
  it.each(INVALID.filter((c) => c.why !== 'check'))('$raw → $why', ({ raw, why }) => {
    expectInvalid(raw, why);
  });

  it('reports the length it got', () => {
    expect(expectInvalid('')).toBe('a NIF has 9 characters, got 0');
    expect(expectInvalid('ES B-583784312')).toBe('a NIF has 9 characters, got 10');
  });
});
