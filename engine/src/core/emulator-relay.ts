import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { EngineError, validation } from './errors';

/** The emulators' guard header (engine/emulators/router.ts; the engine never imports the emulators). */
const CONTROL_TOKEN_HEADER = 'x-control-token';

declare module 'fastify' {
  interface FastifyInstance {
    /** The emulators' per-launch control token (panel-api.ts decorates it when there is one). */
    emulatorControlToken: string | undefined;
  }
}

/**
 * Relays an emulator's fault controls (`<emulator>/__control/<ruta>/faults`) under the panel API,
 * so the till UI can rehearse an outage of any authority. Each emulator mounts its own explicit
 * prefix (`aeat`, `census`, `tbai/<provincia>`): no route relies on mount order.
 */
export function mountEmulatorFaultRelay(
  app: FastifyInstance,
  emulatorUrl: () => string | undefined,
  panelPath: string,
  controlPath: string,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const relay = async (method: 'GET' | 'PUT', body?: unknown) => {
    const base = emulatorUrl();
    if (!base) throw new EngineError(404, 'EMULATORS_NOT_RUNNING', 'Los emuladores no están en marcha');
    const token = app.hasDecorator('emulatorControlToken') ? app.emulatorControlToken : undefined;
    const res = await fetch(`${base}${controlPath}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { [CONTROL_TOKEN_HEADER]: token } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status === 400) throw emulatorRefusal(text);
    if (!res.ok) throw new EngineError(502, 'EMULATOR_ERROR', text.slice(0, 500));
    return JSON.parse(text) as unknown;
  };
  api.get(panelPath, { schema: { tags: ['emuladores'] } }, async () => relay('GET'));
  api.put(panelPath, { schema: { tags: ['emuladores'], body: z.record(z.string(), z.unknown()) } }, async (request) =>
    relay('PUT', request.body),
  );
}

const emulatorRefusalSchema = z.object({
  error: z.string().optional(),
  message: z.string().optional(),
  issues: z
    .array(z.object({ path: z.array(z.union([z.string(), z.number()])).optional(), keys: z.array(z.string()).optional(), message: z.string().optional() }))
    .optional(),
});
type EmulatorIssue = NonNullable<z.infer<typeof emulatorRefusalSchema>['issues']>[number];
/** The field an issue is about: its path, or the first unknown key of a strict object. */
const fieldOf = (i: EmulatorIssue): string =>
  [...(i.path ?? []), ...(i.keys?.length ? [i.keys[0]!] : [])].join('.') || 'body';

/**
 * The emulator's 400 (a zod refusal of the fault patch) as the panel's own 400 naming the field
 * (DESIGN invariant 4); the whole body when the emulator names none.
 */
function emulatorRefusal(text: string): EngineError {
  let parsed: z.infer<typeof emulatorRefusalSchema> = {};
  try {
    parsed = emulatorRefusalSchema.parse(JSON.parse(text));
  } catch {
    // Not the emulator's JSON: the field cannot be told.
  }
  const issues = parsed.issues ?? [];
  const message = issues[0]?.message ?? parsed.message ?? parsed.error ?? 'El emulador rechazó la petición';
  const campo = issues[0] ? fieldOf(issues[0]) : 'body';
  return validation(campo, message, issues.length ? issues.map((i) => `${fieldOf(i)}: ${i.message ?? message}`) : [`${campo}: ${message}`]);
}
