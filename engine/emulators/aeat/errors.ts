import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_REFERENCE_DIR } from '../paths';

// AEAT error codes the emulator answers with. Texts: 4102/4104 from the SOAP
// Fault examples in Veri-Factu_Descripcion_SWeb and odoo/soapfault.xml, 1244
// and 2005 from the real odoo responses; the rest are AEAT's errores.properties
// wording (not among the shipped reference files: taken from a public catalogue of it).

export type ErrorKind = 'envelope' | 'record' | 'admissible';

export interface AeatError {
  kind: ErrorKind;
  text: string;
}

export const AEAT_ERRORS: Readonly<Record<number, AeatError>> = Object.freeze({
  1100: { kind: 'record', text: 'Valor o tipo incorrecto del campo.' },
  1104: { kind: 'record', text: 'El valor del campo NumSerieFactura es incorrecto.' },
  1105: { kind: 'record', text: 'El valor del campo FechaExpedicionFactura es incorrecto.' },
  1108: { kind: 'record', text: 'El NIF del IDEmisorFactura debe ser el mismo que el NIF del ObligadoEmision.' },
  1109: { kind: 'record', text: 'El NIF no está identificado en el censo de la AEAT.' },
  1112: { kind: 'record', text: 'El campo FechaExpedicionFactura es superior a la fecha actual.' },
  1152: { kind: 'record', text: 'La fecha de expedición no puede ser inferior al 28 de octubre de 2024.' },
  1153: {
    kind: 'record',
    text: 'Valor del campo RechazoPrevio no válido, solo podrá incluirse el campo RechazoPrevio con valor X si se ha informado el campo Subsanacion y tiene el valor S.',
  },
  1161: {
    kind: 'record',
    text: 'El valor del campo RechazoPrevio no es válido, no podrá incluirse el campo RechazoPrevio con valor S si no se ha informado del campo Subsanacion o tiene el valor N.',
  },
  1244: { kind: 'record', text: 'El campo FechaHoraHusoGenRegistro tiene un formato incorrecto.' },
  1262: { kind: 'record', text: 'La longitud de huella no cumple con las especificaciones.' },
  1292: { kind: 'record', text: 'El HASH no es alfanumérico.' },
  2000: { kind: 'admissible', text: 'El cálculo de la huella suministrada es incorrecta.' },
  2001: { kind: 'admissible', text: 'El NIF del bloque Destinatarios no está identificado en el censo de la AEAT.' },
  2002: { kind: 'admissible', text: 'La longitud de huella del registro anterior no cumple con las especificaciones.' },
  2003: { kind: 'admissible', text: 'El contenido de la huella del registro anterior no cumple con las especificaciones.' },
  2004: {
    kind: 'admissible',
    text: 'El valor del campo FechaHoraHusoGenRegistro debe ser la fecha actual del sistema de la AEAT, admitiéndose un margen de error de:',
  },
  2005: {
    kind: 'admissible',
    text: 'El campo ImporteTotal tiene un valor incorrecto para el valor de los campos BaseImponibleOimporteNoSujeto, CuotaRepercutida y CuotaRecargoEquivalencia suministrados.',
  },
  2006: {
    kind: 'admissible',
    text: 'El campo CuotaTotal tiene un valor incorrecto para el valor de los campos CuotaRepercutida y CuotaRecargoEquivalencia suministrados.',
  },
  2007: {
    kind: 'admissible',
    text: 'No debe informarse como primer registro, existen facturas emitidas con el obligado emisión y el sistema informático actual.',
  },
  2008: {
    kind: 'admissible',
    text: 'El valor de la huella del registro anterior debe ser diferente a la huella del registro actual.',
  },
  2009: { kind: 'admissible', text: 'Si el campo Impuesto tiene valor IPSI(02) el campo ClaveRegimen debe de estar cumplimentado.' },
  3000: { kind: 'record', text: 'Registro de facturación duplicado.' },
  3001: { kind: 'record', text: 'El registro de facturación ya ha sido dado de baja.' },
  3002: { kind: 'record', text: 'No existe el registro de facturación.' },
  4102: { kind: 'envelope', text: 'El XML no cumple el esquema.' },
  4104: { kind: 'envelope', text: 'El NIF del titular en la cabecera no está identificado.' },
  4105: {
    kind: 'envelope',
    text: 'Error en la cabecera: el valor del campo NIF del bloque Representante no está identificado.',
  },
  4112: {
    kind: 'envelope',
    text: 'El titular del certificado debe ser Obligado Emisión, Colaborador Social, Apoderado o Sucesor.',
  },
  4135: { kind: 'envelope', text: 'Esta URL no puede ser utilizada mediante GET.' },
});

let official: ReadonlyMap<number, string> | null = null;

/**
 * The texts of the AEAT's errores.properties (ISO-8859-1, `NNNN = text` lines), read once. The
 * file is shipped in assets/reference; a folder without it (an older POS_REFERENCE_DIR) leaves the
 * table above.
 */
export function officialTexts(): ReadonlyMap<number, string> {
  if (official) return official;
  const texts = new Map<number, string>();
  const dir = process.env.POS_REFERENCE_DIR ?? SHIPPED_REFERENCE_DIR;
  try {
    const raw = readFileSync(path.join(dir, 'verifactu', 'validaciones', 'errores.properties'), 'latin1');
    for (const line of raw.split(/\r?\n/)) {
      const m = /^(\d{4}) = (.*)$/.exec(line);
      if (m) texts.set(Number(m[1]), (m[2] as string).trim());
    }
  } catch {
    // Not shipped there: the table above answers.
  }
  official = texts;
  return texts;
}

/**
 * Description for a code: the table above (its texts follow real replies where one was seen), else
 * the AEAT's list; a code neither lists gets a neutral text rather than failing.
 */
export function describeError(code: number, detail?: string): string {
  const known = AEAT_ERRORS[code]?.text ?? officialTexts().get(code) ?? 'Error simulado por el emulador de la AEAT.';
  if (code === 2004 && detail) return `${known} ${detail}`;
  return known;
}

/**
 * Order in which admissible errors win when a record has several (only one
 * CodigoErrorRegistro fits a RespuestaLinea). 2004 goes last: AEAT says it needs
 * no correction.
 */
export const ADMISSIBLE_PRIORITY: readonly number[] = [2000, 2005, 2006, 2009, 2007, 2002, 2003, 2008, 2001, 2004];

/** The 4102 text for an XSD verdict: libxml2's first message as xmllint prints it, its namespaces left out. */
export function schemaFaultText(errors: readonly string[]): string {
  const first = errors[0] ?? '';
  const clean = first.replace(/\{[^}]*\}/g, '').replace(/^.*?Schemas validity error\s*:\s*/, '');
  // libxml2 lists optional siblings before the mandatory one it needs: name the last.
  const expected = /Expected is(?: one of)? \(([^)]*)\)/.exec(clean)?.[1]?.split(',').map((x) => x.trim()).filter(Boolean);
  const missing = expected?.[expected.length - 1];
  const detail = missing ? `Falta informar campo obligatorio.: ${missing}` : clean.slice(0, 300);
  return `${describeError(4102)} ${detail}`.trim();
}
