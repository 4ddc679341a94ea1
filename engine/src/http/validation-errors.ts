import type { FastifySchemaValidationError } from 'fastify';

/** `/detalleDesglose/0/baseImponible` → `detalleDesglose[0].baseImponible` (the API-CONTRACT `campo`). */
export function campoFromPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^\d+$/.test(String(segment))) out += `[${segment}]`;
    else out += out ? `.${segment}` : String(segment);
  }
  return out;
}

function segmentsOf(instancePath: string): string[] {
  return instancePath.split('/').filter((s) => s.length > 0);
}

export interface FieldProblem {
  campo: string;
  message: string;
}

/**
 * Flattens zod-provider validation errors into fields, naming unknown keys themselves. `where`
 * (body, querystring, params) names the field when the path is empty, e.g. an unknown key `""`.
 */
export function problemsFromValidation(errors: readonly FastifySchemaValidationError[], where = 'body'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const error of errors) {
    const base = segmentsOf(error.instancePath);
    const params = error.params as { keys?: unknown } | undefined;
    if (error.keyword === 'unrecognized_keys' && Array.isArray(params?.keys)) {
      for (const key of params.keys) {
        problems.push({ campo: campoFromPath([...base, String(key)]) || where, message: 'campo no admitido' });
      }
      continue;
    }
    problems.push({ campo: campoFromPath(base) || where, message: error.message ?? 'inválido' });
  }
  return problems;
}
