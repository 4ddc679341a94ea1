import { serializerCompiler } from '@fastify/type-provider-zod';
import type { FastifySerializerCompiler } from 'fastify';
import type { $ZodType } from 'zod/v4/core';

/** What a field of a flat answer may hold, read from its zod schema. */
type FieldKind = 'string' | 'boolean' | 'strings';

interface Field {
  /** `"name":`, built once. */
  prefix: string;
  name: string;
  kind: FieldKind;
  optional: boolean;
}

interface ZodDef {
  type: string;
  innerType?: $ZodType;
  element?: $ZodType;
  values?: unknown[];
  shape?: Record<string, $ZodType>;
  catchall?: $ZodType;
}

const defOf = (schema: $ZodType): ZodDef => schema._zod.def as unknown as ZodDef;

function leafKind(schema: $ZodType): FieldKind | undefined {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
    case 'enum':
      return 'string';
    case 'literal':
      return def.values?.every((v) => typeof v === 'string') ? 'string' : undefined;
    case 'boolean':
      return 'boolean';
    case 'array':
      return def.element && leafKind(def.element) === 'string' ? 'strings' : undefined;
    default:
      return undefined;
  }
}

/** The fields of a flat object schema (strings, booleans, string arrays, each maybe optional), or undefined. */
export function flatFields(schema: $ZodType): Field[] | undefined {
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape) return undefined;
  // A catch-all (passthrough) answer keeps unknown keys: not flat in the sense used here.
  if (def.catchall && defOf(def.catchall).type !== 'never') return undefined;
  const fields: Field[] = [];
  for (const [name, fieldSchema] of Object.entries(def.shape)) {
    const fieldDef = defOf(fieldSchema);
    const optional = fieldDef.type === 'optional';
    const kind = leafKind(optional && fieldDef.innerType ? fieldDef.innerType : fieldSchema);
    if (!kind) return undefined;
    fields.push({ prefix: `${JSON.stringify(name)}:`, name, kind, optional });
  }
  return fields;
}

function holds(kind: FieldKind, value: unknown): boolean {
  if (kind === 'string') return typeof value === 'string';
  if (kind === 'boolean') return typeof value === 'boolean';
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/**
 * The issuing answers (crear, subsanar of both regimes) at the speed of JSON.stringify: the zod
 * serializer checks every answer against its schema — a regex over the ≈ 1 KB QR base64 among
 * them — and then stringifies a copy: ≈ 30 µs a request against ≈ 7–12 µs written here. Here the schema is read once: the answer
 * is written field by field in the schema's order, exactly the bytes the zod serializer writes
 * (its output object follows the shape's key order; tests compare the two). Each field's JSON
 * type is checked; an answer that does not fit goes through the zod serializer, which then fails it
 * as before. String formats (regexes, lengths) are the service's to produce and the tests' to
 * prove. A schema that is not a flat object is left to the zod serializer.
 */
export const flatSerializerCompiler: FastifySerializerCompiler<unknown> = (route) => {
  const zod = serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);
  const fields = route.schema instanceof Object && '_zod' in route.schema ? flatFields(route.schema as $ZodType) : undefined;
  if (!fields) return zod;
  return (data: unknown) => {
    if (typeof data !== 'object' || data === null) return zod(data);
    const answer = data as Record<string, unknown>;
    let out = '{';
    let written = 0;
    for (const field of fields) {
      const value = answer[field.name];
      if (value === undefined) {
        if (field.optional) continue;
        return zod(data);
      }
      if (!holds(field.kind, value)) return zod(data);
      out += written++ === 0 ? field.prefix : `,${field.prefix}`;
      out += JSON.stringify(value);
    }
    // A key the schema does not know (a strict object refuses it): the zod serializer decides.
    let present = 0;
    for (const key in answer) if (answer[key] !== undefined) present++;
    return present === written ? `${out}}` : zod(data);
  };
};
