import type { EstadoNif } from '../../../src-shared/api/nif';
import { classifyNif } from '../../../src-shared/nif';

// Pure rules of the NIF check: the census's labels to the API's `estado`, the cache key of a
// query and when `nombreCenso` is shown. No I/O.

/**
 * The census's verdict label (upper case, as AEAT writes it) to the API's `estado`.
 *   IDENTIFICADO → identificado            NO IDENTIFICADO-SIMILAR → similar
 *   IDENTIFICADO-BAJA → identificado_baja   IDENTIFICADO-REVOCADO → identificado_revocado
 *   NO IDENTIFICADO → no_identificado
 *   NO PROCESADO, NO IDENTIFICABLE and any label not listed → no_procesado (no conclusive answer)
 * Spacing and case around the hyphen do not matter ("No identificado - similar").
 */
export function estadoFromLabel(label: string): EstadoNif {
  const l = normalizeLabel(label);
  switch (l) {
    case 'IDENTIFICADO':
      return 'identificado';
    case 'IDENTIFICADO-BAJA':
      return 'identificado_baja';
    case 'IDENTIFICADO-REVOCADO':
      return 'identificado_revocado';
    case 'NO IDENTIFICADO':
      return 'no_identificado';
    default:
      return l.includes('SIMILAR') ? 'similar' : 'no_procesado';
  }
}

export function normalizeLabel(label: string): string {
  return label.trim().toUpperCase().replace(/\s*-\s*/g, '-').replace(/\s+/g, ' ');
}

/** The census compares upper-case names; spacing does not count either. */
export function normalizeNombre(nombre: string): string {
  return nombre.trim().toUpperCase().replace(/\s+/g, ' ');
}

/** The census ignores the queried name of a legal person (CIF): one verdict per NIF then. */
export function ignoresName(nif: string): boolean {
  return classifyNif(nif) === 'cif';
}

/** Cache key of a query: (NIF, normalized name), the name left out for a CIF. */
export function nombreClave(nif: string, nombre: string): string {
  return ignoresName(nif) ? '' : normalizeNombre(nombre);
}

/**
 * `nombreCenso`: the name the census answered, when the NIF is present (identified, similar,
 * deregistered, revoked) and that name differs from the queried one (case and spacing aside) —
 * the official company name for a CIF, the full name for a partial DNI/NIE name. Null otherwise:
 * a NIF not identified with those data reveals no name.
 */
export function nombreCenso(estado: EstadoNif, queried: string, answered: string | undefined): string | null {
  if (estado !== 'identificado' && estado !== 'similar' && estado !== 'identificado_baja' && estado !== 'identificado_revocado') {
    return null;
  }
  if (answered === undefined || answered.trim() === '') return null;
  return normalizeNombre(answered) === normalizeNombre(queried) ? null : answered.trim();
}

/** Verdicts worth keeping: the census said something conclusive. */
export function isConclusive(estado: EstadoNif): boolean {
  return estado !== 'no_procesado' && estado !== 'formato_invalido';
}
