// fast-check generators of VeriFactu crear bodies for the differential tests: mostly schema-valid
// invoices that exercise every rule (every tipoFactura, rectificativas, exemptions, several
// desglose lines, recargo, amounts on both sides of AEAT's 10,00 € tolerances, edge amounts), and
// the same bodies mutated into schema violations (exponents, 3 decimals, JSON numbers, unknown or
// missing keys, bad text and dates).
import fc from 'fast-check';
import { CLAVES_REGIMEN, TIPOS_FACTURA } from '../../../../src-shared/api/verifactu';

/** Cents → an amount string in one of the spellings the schema accepts. */
export function importeTexto(cents: bigint, estilo: number): string {
  const neg = cents < 0n;
  const abs = neg ? -cents : cents;
  const int = (abs / 100n).toString();
  const frac = (abs % 100n).toString().padStart(2, '0');
  let s: string;
  if (estilo === 1 && frac === '00') s = int; // "12"
  else if (estilo === 2 && frac.endsWith('0')) s = `${int}.${frac.charAt(0)}`; // "12.5"
  else if (estilo === 3 && int.length < 12) s = `0${int}.${frac}`; // "012.50"
  else s = `${int}.${frac}`;
  // "-0", "-0.00": the schema accepts a signed zero.
  return (neg || (abs === 0n && estilo === 4) ? '-' : '') + s;
}

const centsPequenos = fc.bigInt({ min: -500_000n, max: 500_000n });
const centsGrandes = fc.bigInt({ min: -99_999_999_999_999n, max: 99_999_999_999_999n });
const centsBorde = fc.constantFrom(0n, 1n, -1n, 99n, 100n, 40_000n, 40_001n, 300_000n, 301_000n, 301_001n, 99_999_999_999_999n, -99_999_999_999_999n, 4_500_000_000_000n);
const cents = fc.oneof({ weight: 6, arbitrary: centsPequenos }, { weight: 2, arbitrary: centsGrandes }, { weight: 2, arbitrary: centsBorde });
const estilo = fc.integer({ min: 0, max: 4 });

/** Offsets around AEAT's 10,00 € tolerance (cents), or anything. */
const desvio = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0n) },
  { weight: 3, arbitrary: fc.constantFrom(1n, -1n, 999n, -999n, 1000n, -1000n, 1001n, -1001n) },
  { weight: 1, arbitrary: fc.bigInt({ min: -1_000_000n, max: 1_000_000n }) },
);

const TIPOS = ['21', '21.00', '10', '10.0', '5', '4', '2', '7.5', '7.50', '0', '0.00', '5.2', '1.75', '1.4', '0.5', '0.62', '0.26', '1', '3', '999.99', '007.50', '12.34', '18', '16.00', '8', '7'];
const tipo = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...TIPOS) }, { weight: 1, arbitrary: fc.stringMatching(/^\d{1,3}(\.\d{1,2})?$/) });

function centesimasDe(t: string): bigint {
  const [i = '0', f = ''] = t.split('.');
  return BigInt(i) * 100n + BigInt((f + '00').slice(0, 2));
}

/** base × tipo / 100 in cents, rounded half away from zero. */
export function cuotaDe(base: bigint, t: string): bigint {
  const p = base * centesimasDe(t);
  const abs = p < 0n ? -p : p;
  const r = (abs + 5_000n) / 10_000n;
  return p < 0n ? -r : r;
}

const MAX = 99_999_999_999_999n;
const acotar = (c: bigint): bigint => (c > MAX ? MAX : c < -MAX ? -MAX : c);

interface LineaGenerada {
  linea: Record<string, unknown>;
  base: bigint;
  cuota: bigint;
  recargo: bigint;
}

const linea: fc.Arbitrary<LineaGenerada> = fc
  .record({
    impuesto: fc.option(fc.constantFrom('01', '02', '03', '05'), { freq: 3, nil: undefined }),
    clave: fc.option(fc.constantFrom(...CLAVES_REGIMEN, '01', '01', '01'), { freq: 8, nil: undefined }),
    cal: fc.constantFrom('S1', 'S1', 'S1', 'S2', 'N1', 'N2', 'E1', 'E2', 'E3', 'E5', 'E7', 'E8', 'S1+E1', 'ninguna'),
    base: cents,
    baseEstilo: estilo,
    tipo: fc.option(tipo, { freq: 8, nil: undefined }),
    cuotaDesvio: desvio,
    cuotaAusente: fc.constantFrom(false, false, false, false, false, false, false, true),
    cuotaEstilo: estilo,
    recargo: fc.option(fc.tuple(fc.option(tipo, { freq: 6, nil: undefined }), fc.option(cents, { freq: 6, nil: undefined }), estilo), { freq: 4, nil: undefined }),
  })
  .map((r) => {
    const l: Record<string, unknown> = {};
    if (r.impuesto !== undefined) l.impuesto = r.impuesto;
    if (r.clave !== undefined) l.claveRegimen = r.clave;
    if (r.cal === 'S1+E1') {
      l.calificacionOperacion = 'S1';
      l.operacionExenta = 'E1';
    } else if (r.cal.startsWith('E')) l.operacionExenta = r.cal;
    else if (r.cal !== 'ninguna') l.calificacionOperacion = r.cal;
    l.baseImponible = importeTexto(r.base, r.baseEstilo);
    let cuota = 0n;
    if (r.tipo !== undefined) l.tipoImpositivo = r.tipo;
    if (!r.cuotaAusente) {
      cuota = acotar(r.tipo === undefined ? r.cuotaDesvio : cuotaDe(r.base, r.tipo) + r.cuotaDesvio);
      l.cuotaRepercutida = importeTexto(cuota, r.cuotaEstilo);
    }
    let recargo = 0n;
    if (r.recargo !== undefined) {
      const [t, c, e] = r.recargo;
      if (t !== undefined) l.tipoRecargoEquivalencia = t;
      if (c !== undefined) {
        recargo = c;
        l.cuotaRecargoEquivalencia = importeTexto(c, e);
      }
    }
    return { linea: l, base: r.base, cuota, recargo };
  });

/** A line of an ordinary sale: IVA, regime 01, S1, a rate in force, the cuota within cents of base × tipo. */
const lineaComun: fc.Arbitrary<LineaGenerada> = fc
  .record({
    impuesto: fc.constantFrom('01', undefined),
    base: fc.oneof({ weight: 5, arbitrary: fc.bigInt({ min: 1n, max: 50_000n }) }, { weight: 1, arbitrary: cents }),
    baseEstilo: estilo,
    tipo: fc.constantFrom('21', '21.00', '10', '4', '0'),
    cuotaDesvio: fc.constantFrom(0n, 0n, 0n, 1n, -1n, 1001n),
    cuotaEstilo: estilo,
  })
  .map((r) => {
    const cuota = acotar(cuotaDe(r.base, r.tipo) + r.cuotaDesvio);
    const l: Record<string, unknown> = {};
    if (r.impuesto !== undefined) l.impuesto = r.impuesto;
    l.claveRegimen = '01';
    l.calificacionOperacion = 'S1';
    l.baseImponible = importeTexto(r.base, r.baseEstilo);
    l.tipoImpositivo = r.tipo;
    l.cuotaRepercutida = importeTexto(cuota, r.cuotaEstilo);
    return { linea: l, base: r.base, cuota, recargo: 0n };
  });

/** The till's everyday body: a ticket (F2) or an invoice to a recipient by NIF (F1). */
const cuerpoComun = fc
  .record({
    f1: fc.boolean(),
    serie: fc.option(fc.constantFrom('T', 'TPV1-', 'S'.repeat(30)), { nil: undefined }),
    numero: fc.oneof(fc.nat().map(String), fc.constantFrom('N'.repeat(30), 'N'.repeat(31), 'N'.repeat(60))),
    fechaExpedicion: fc.constantFrom('02-03-2026', '01-03-2026', '15-11-2024'),
    nif: fc.constantFrom('12345678Z', 'Q2826000H', 'B12345674'),
    lineas: fc.array(lineaComun, { minLength: 1, maxLength: 5 }),
    cuotaDesvio: fc.constantFrom(0n, 0n, 0n, 1n, 1001n),
    totalDesvio: fc.constantFrom(0n, 0n, 0n, -1n, 1001n),
    totalEstilo: estilo,
    idMaquina: fc.option(fc.constantFrom('TPV-1', 'WEB-abc123'), { nil: undefined }),
  })
  .map((r) => {
    let base = 0n;
    let cuota = 0n;
    for (const l of r.lineas) {
      base += l.base;
      cuota += l.cuota;
    }
    const body: Record<string, unknown> = {
      version: '1.0',
      emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
      cabecera: { ...(r.serie !== undefined ? { serie: r.serie } : {}), numero: r.numero, fechaExpedicion: r.fechaExpedicion, tipoFactura: r.f1 ? 'F1' : 'F2', descripcion: 'Venta' },
    };
    if (r.f1) body.destinatario = { nif: r.nif, nombre: 'Cliente & Cía' };
    body.detalleDesglose = r.lineas.map((l) => l.linea);
    body.totales = {
      cuotaTotal: importeTexto(acotar(cuota + r.cuotaDesvio), 0),
      importeTotal: importeTexto(acotar(base + cuota + r.totalDesvio), r.totalEstilo),
    };
    if (r.idMaquina !== undefined) body.idMaquina = r.idMaquina;
    return body;
  });

const anio = fc.integer({ min: 2004, max: 2029 });
const fecha = fc
  .tuple(fc.integer({ min: 1, max: 28 }), fc.integer({ min: 1, max: 12 }), anio)
  .map(([d, m, a]) => `${String(d).padStart(2, '0')}-${String(m).padStart(2, '0')}-${a}`);
const fechaCercana = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('02-03-2026', '01-03-2026', '28-10-2024', '27-10-2024', '15-11-2024', '01-07-2023', '31-12-2022', '03-03-2026', '02-03-2027', '31-12-2027', '01-01-2028') },
  // The rates of up to 2012 (1132/1135) and the NIF-IVA of the United Kingdom (1254/1255) change on these.
  { weight: 1, arbitrary: fc.constantFrom('31-12-2012', '01-01-2013', '31-12-2020', '01-01-2021', '31-01-2021', '01-02-2021') },
  { weight: 2, arbitrary: fecha },
);

const NIFS = ['12345678Z', 'Q2826000H', 'B12345674', 'P2807900B', 'S2800155B', 'V12345675', '12345678A'];
const idOtro = fc.record(
  {
    codigoPais: fc.constantFrom('FR', 'ES', 'GR', 'GB', 'DE', 'US'),
    idType: fc.constantFrom('02', '03', '04', '05', '06', '07'),
    id: fc.constantFrom('FR52422961982', 'EL123456789', 'XI123456789', 'GB123456789', 'X1234567', 'X1234567L', '12345678Z', 'B12345674', 'DE123456789', 'AB-1234'),
  },
  { requiredKeys: ['idType', 'id'] },
);
const persona = fc
  .record({ nif: fc.option(fc.constantFrom(...NIFS), { freq: 3, nil: undefined }), otro: fc.option(idOtro, { freq: 2, nil: undefined }) })
  .map(({ nif, otro }) => {
    const p: Record<string, unknown> = {};
    if (nif !== undefined) p.nif = nif;
    p.nombre = 'Cliente <Pérez> & Hijos';
    if (otro !== undefined) p.idOtro = otro;
    return p;
  });

const texto = fc.oneof({ weight: 5, arbitrary: fc.constantFrom('Venta', 'Ticket de caja', 'Ferretería "López" & Hijos', 'a\r\nb', "d'Ors <x>") }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) });

const especial = fc.record(
  {
    facturaSimplificadaArt7273: fc.boolean(),
    facturaSinIdentifDestinatarioArt61d: fc.boolean(),
    cupon: fc.boolean(),
    emitidaPor: fc.constantFrom('T', 'D'),
    tercero: persona,
    numRegistroAcuerdoFacturacion: fc.constantFrom('ACU-1', 'REG 2026'),
    idAcuerdoSistemaInformatico: fc.constantFrom('SIS-9'),
  },
  { requiredKeys: [] },
);

const idFactura = fc.record({ serie: fc.constantFrom('T', 'A-2026/'), numero: fc.constantFrom('1', '000120'), fechaExpedicion: fechaCercana }, { requiredKeys: ['numero', 'fechaExpedicion'] });

export interface Contexto {
  hoy: string;
  subsanacion?: boolean;
  rechazoPrevio?: 'N' | 'S' | 'X';
}

export const contexto: fc.Arbitrary<Contexto> = fc.record(
  {
    hoy: fc.constantFrom('02-03-2026', '02-03-2026', '15-11-2024', '31-12-2024', '02-03-2046', '01-01-2025'),
    subsanacion: fc.boolean(),
    rechazoPrevio: fc.constantFrom('N', 'S', 'X'),
  },
  { requiredKeys: ['hoy'] },
) as fc.Arbitrary<Contexto>;

const cuerpoCualquiera: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    tipoFactura: fc.constantFrom(...TIPOS_FACTURA, 'F2', 'F2', 'F1'),
    serie: fc.option(fc.constantFrom('T', 'A-2026/', 'TPV1-', 'x y'), { freq: 5, nil: undefined }),
    numero: fc.oneof(fc.constantFrom('1', '000123', 'ABC-99/2026'), fc.nat().map(String)),
    fechaExpedicion: fechaCercana,
    fechaOperacion: fc.option(fechaCercana, { freq: 4, nil: undefined }),
    descripcion: texto,
    destinatario: fc.option(persona, { freq: 2, nil: undefined }),
    lineas: fc.array(linea, { minLength: 1, maxLength: 4 }),
    cuotaDesvio: desvio,
    totalDesvio: desvio,
    totalEstilo: estilo,
    especial: fc.option(especial, { freq: 4, nil: undefined }),
    rectificativa: fc.option(
      fc.record({ tipo: fc.constantFrom('S', 'I'), importes: fc.option(fc.tuple(cents, cents, fc.option(cents, { nil: undefined })), { nil: undefined }) }),
      { freq: 2, nil: undefined },
    ),
    rectificadas: fc.option(fc.array(idFactura, { minLength: 1, maxLength: 2 }), { freq: 3, nil: undefined }),
    sustituidas: fc.option(fc.array(idFactura, { minLength: 1, maxLength: 2 }), { freq: 4, nil: undefined }),
    aux: fc.option(fc.constant({ refExterna: 'POS-77' }), { freq: 5, nil: undefined }),
    idMaquina: fc.option(fc.constantFrom('TPV-1', 'WEB-abc123'), { freq: 4, nil: undefined }),
  })
  .map((r) => {
    const esRect = r.tipoFactura.startsWith('R');
    let base = 0n;
    let cuota = 0n;
    let recargo = 0n;
    for (const l of r.lineas) {
      base += l.base;
      cuota += l.cuota;
      recargo += l.recargo;
    }
    const cabecera: Record<string, unknown> = {};
    if (r.serie !== undefined) cabecera.serie = r.serie;
    cabecera.numero = r.numero;
    cabecera.fechaExpedicion = r.fechaExpedicion;
    cabecera.tipoFactura = r.tipoFactura;
    cabecera.descripcion = r.descripcion;
    if (r.fechaOperacion !== undefined) cabecera.fechaOperacion = r.fechaOperacion;
    const body: Record<string, unknown> = {
      version: '1.0',
      emisor: { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL' },
      cabecera,
    };
    if (r.destinatario !== undefined) body.destinatario = r.destinatario;
    body.detalleDesglose = r.lineas.map((l) => l.linea);
    body.totales = {
      cuotaTotal: importeTexto(acotar(cuota + recargo + r.cuotaDesvio), 0),
      importeTotal: importeTexto(acotar(base + cuota + recargo + r.totalDesvio), r.totalEstilo),
    };
    if (r.especial !== undefined) body.especial = r.especial;
    if (r.rectificativa !== undefined) {
      const rect: Record<string, unknown> = { tipo: r.rectificativa.tipo };
      const imp = r.rectificativa.importes;
      if (imp !== undefined) {
        rect.importes = { baseRectificada: importeTexto(imp[0], 0), cuotaRectificada: importeTexto(imp[1], 1) };
        if (imp[2] !== undefined) (rect.importes as Record<string, unknown>).cuotaRecargoRectificada = importeTexto(imp[2], 2);
      }
      body.rectificativa = rect;
    }
    // Mostly consistent with the type, sometimes not (schema rules 1116/1117).
    if (r.rectificadas !== undefined && (esRect || r.numero.length % 3 === 0)) body.facturasRectificadas = r.rectificadas;
    if (r.sustituidas !== undefined && (r.tipoFactura === 'F3' || r.numero.length % 3 === 0)) body.facturasSustituidas = r.sustituidas;
    if (r.aux !== undefined) body.aux = r.aux;
    if (r.idMaquina !== undefined) body.idMaquina = r.idMaquina;
    return body;
  });

/** A crear body, as JSON.parse gives it: schema-valid in most runs (mutate it for invalid ones). */
export const cuerpoCrear: fc.Arbitrary<Record<string, unknown>> = fc.oneof(cuerpoComun, cuerpoCualquiera);

/** Hostile values for a leaf. */
const valorHostil = fc.constantFrom<unknown>(
  '1e3', '1E3', '1.005', '12.345', '1,00', '+1', ' 1', '1 ', '', '.5', '5.', '-', '--1', '1234567890123', '0x10',
  12.1, 0, -0, 1e21, null, true, [], {}, '&amp;', 'a&#38;b', '\u0001', '\uD800', 'x'.repeat(600), ' ',
  '2026-03-02', '30-02-2026', '29-02-2025', '29-02-2024', 'F9', 'S3', '99', 'es', 'b12345674',
  'E1', 'S1', '01', '12345678Z', 'A'.repeat(30), 'A'.repeat(59), 'A'.repeat(60), 'A'.repeat(61), 'A'.repeat(121),
  { nif: '12345678Z', nombre: 'X' }, { idType: '07', id: 'X1', codigoPais: 'ES' },
);

/** Every path to a leaf or object of `value` (arrays by index). */
function rutas(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = [...prefix, Array.isArray(value) ? Number(k) : k];
      out.push(p);
      rutas(v, p, out);
    }
  }
  return out;
}

function clonar<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

type Mutacion = { tipo: 'poner'; valor: unknown } | { tipo: 'quitar' } | { tipo: 'clave'; nombre: string; valor: unknown };

/** Keys added where they may or may not belong: unknown ones, prototype names, and the schema's own. */
const claveAnadida = fc.constantFrom(
  'extra', '__proto__', 'constructor', 'toString', 'operacionExenta', 'calificacionOperacion', 'serie', 'numero',
  'idOtro', 'nif', 'fechaOperacion', 'especial', 'rectificativa', 'aux', 'idMaquina', 'impuesto', 'tipoImpositivo',
);

/** A crear body, possibly broken at one random place (value replaced, key removed, unknown key added). */
export const cuerpoCrearQuizaRoto: fc.Arbitrary<unknown> = fc
  .tuple(
    // Mostly everyday bodies: the precompiled check only engages on those.
    fc.oneof({ weight: 3, arbitrary: cuerpoComun }, { weight: 1, arbitrary: cuerpoCualquiera }),
    fc.option(
      fc.tuple(
        fc.nat(),
        fc.oneof(
          { weight: 4, arbitrary: valorHostil.map((valor): Mutacion => ({ tipo: 'poner', valor })) },
          { weight: 1, arbitrary: fc.constant<Mutacion>({ tipo: 'quitar' }) },
          { weight: 2, arbitrary: fc.tuple(claveAnadida, valorHostil).map(([nombre, valor]): Mutacion => ({ tipo: 'clave', nombre, valor })) },
        ),
      ),
      { freq: 2, nil: undefined },
    ),
  )
  .map(([body, mut]) => {
    if (mut === undefined) return body;
    const copia = clonar(body);
    const todas = rutas(copia);
    const ruta = todas[mut[0] % todas.length] ?? [];
    let padre: Record<string | number, unknown> = copia;
    for (const k of ruta.slice(0, -1)) padre = padre[k] as Record<string | number, unknown>;
    const ultima = ruta[ruta.length - 1] ?? 'version';
    const m = mut[1];
    if (m.tipo === 'poner') padre[ultima] = m.valor;
    else if (m.tipo === 'quitar') {
      if (Array.isArray(padre)) padre.splice(Number(ultima), 1);
      else delete padre[ultima];
    } else {
      // As JSON.parse would create it: an own enumerable key, even `__proto__`.
      const destino = (padre[ultima] !== null && typeof padre[ultima] === 'object' ? padre[ultima] : copia) as object;
      Object.defineProperty(destino, m.nombre, { value: m.valor, enumerable: true, writable: true, configurable: true });
    }
    return copia;
  });
