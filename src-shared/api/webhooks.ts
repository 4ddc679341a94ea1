// HTTP contract of the webhooks (spec "Webhook", "Webhooks (management API)", "Events";
// API-CONTRACT "Management API, beyond the spec"). Requests are strict objects: an unknown key is
// a 400 naming it. Shape rules live here so that `campo` names the field; the rules that need the
// store (ownership of issuers, state transitions) live in engine/src/webhooks/service.ts.
import { z } from 'zod';
import { entornoSchema, timestampSchema } from './common';
import { nifBasico } from '../primitives';

/** The three events, in the spec's order: the canonical order of every stored subscription. */
export const EVENTOS_WEBHOOK = ['factura.registrada', 'factura.rechazada', 'factura.anulada'] as const;
export type EventoWebhook = (typeof EVENTOS_WEBHOOK)[number];

export const ESTADOS_WEBHOOK = ['activo', 'inactivo', 'suspendido'] as const;
export type EstadoWebhook = (typeof ESTADOS_WEBHOOK)[number];

export const PREFIJO_CABECERAS_POR_DEFECTO = 'X-Service-';
export const SECRETO_MIN = 16;
export const SECRETO_MAX = 512;
export const NOMBRE_MAX = 120;
export const URL_MAX = 2048;
/** NIFs per link call (the spec's batch size for NIF checks). */
export const CLIENTES_POR_LLAMADA = 100;

export const eventoWebhookSchema = z.enum(EVENTOS_WEBHOOK, {
  error: (issue) =>
    `unknown event ${JSON.stringify(issue.input)}; valid events: ${EVENTOS_WEBHOOK.join(', ')}`,
});

/** Canonical form: the spec's order, without duplicates. */
export function canonicalEventos(eventos: readonly EventoWebhook[]): EventoWebhook[] {
  const wanted = new Set(eventos);
  return EVENTOS_WEBHOOK.filter((e) => wanted.has(e));
}

/** A subscription as sent: non-empty, known names, and always with `factura.rechazada`. */
export const eventosSchema = z
  .array(eventoWebhookSchema, { error: 'eventos must be an array of event names' })
  .check((ctx) => {
    if (ctx.value.length === 0) {
      ctx.issues.push({
        code: 'custom',
        message: 'an empty list is not accepted; to stop deliveries send estado: inactivo',
        input: ctx.value,
      });
    } else if (!ctx.value.includes('factura.rechazada')) {
      ctx.issues.push({
        code: 'custom',
        message: 'a subscription must include factura.rechazada (a rejected record is not presented)',
        input: ctx.value,
      });
    }
  });

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

export const nombreWebhookSchema = z.string({ error: 'nombre must be a string' }).check((ctx) => {
  const v = ctx.value;
  if (v.trim() === '') ctx.issues.push({ code: 'custom', message: 'nombre must not be empty', input: v });
  else if (codePoints(v) > NOMBRE_MAX) ctx.issues.push({ code: 'custom', message: `at most ${NOMBRE_MAX} characters`, input: v });
  else if (/[\u0000-\u001f\u007f]/.test(v)) ctx.issues.push({ code: 'custom', message: 'control characters are not allowed', input: v });
});

/** The HMAC key: 16 to 512 characters (code points), chosen by the caller. Never echoed. */
export const secretoSchema = z.string({ error: 'secreto must be a string' }).check((ctx) => {
  const n = codePoints(ctx.value);
  if (n < SECRETO_MIN || n > SECRETO_MAX) {
    // The message never repeats the value: it is a secret.
    ctx.issues.push({ code: 'custom', message: `secreto must have ${SECRETO_MIN} to ${SECRETO_MAX} characters (got ${n})`, input: '' });
  }
});

/** Header-name prefix (`X-Service-` by default), e.g. for receivers built for another vendor. */
export const prefijoCabecerasSchema = z
  .string({ error: 'prefijoCabeceras must be a string' })
  .regex(/^[A-Za-z][A-Za-z0-9-]{0,39}$/, {
    error: 'prefijoCabeceras must be 1–40 letters, digits or hyphens, starting with a letter (e.g. "X-Service-")',
  });

// ---------------------------------------------------------------- URL rules

function ipv4Private(a: number, b: number): boolean {
  return (
    a === 127 || // loopback 127/8
    a === 10 || // 10/8
    (a === 172 && b >= 16 && b <= 31) || // 172.16/12
    (a === 192 && b === 168) // 192.168/16
  );
}

/**
 * Why an IPv4 address is never a webhook receiver, or null: link-local (169.254/16, where cloud
 * metadata services answer), "this network" (0/8, 0.0.0.0 unspecified), multicast (224/4) and the
 * limited broadcast 255.255.255.255. None is a host a delivery may reach.
 */
function ipv4Forbidden(a: number, b: number, c: number, d: number): string | null {
  if (a === 169 && b === 254) return 'link-local address (169.254.0.0/16)';
  if (a === 0) return 'unspecified address (0.0.0.0/8)';
  if (a >= 224 && a <= 239) return 'multicast address (224.0.0.0/4)';
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast address (255.255.255.255)';
  return null;
}

function parseIpv4(host: string): [number, number, number, number] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number) as [number, number, number, number];
  return parts.every((p) => p <= 255) ? parts : null;
}

/** The eight 16-bit groups of a WHATWG-serialized IPv6 address (hex groups, `::` compression). */
function parseIpv6(host: string): number[] | null {
  const halves = host.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  if (fill < 0 || (halves.length === 1 && head.length !== 8)) return null;
  const all = [...head, ...Array.from({ length: fill }, () => '0'), ...tail];
  if (all.length !== 8 || !all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

function ipv6Private(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return true; // ::1
  if ((g0 & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return ipv4Private(g6 >> 8, g6 & 0xff); // ::ffff:a.b.c.d
  return false;
}

function ipv6Forbidden(g: number[]): string | null {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const v4 = (why: string | null) => (why === null ? null : `IPv4-mapped ${why}`);
  if (g.every((x) => x === 0)) return 'unspecified address (::)';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local address (fe80::/10)';
  if ((g0 & 0xff00) === 0xff00) return 'multicast address (ff00::/8)';
  // ::ffff:a.b.c.d (IPv4-mapped) and the deprecated ::a.b.c.d (IPv4-compatible) reach the IPv4 address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || (g5 === 0 && g6 !== 0))) {
    return v4(ipv4Forbidden(g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff));
  }
  return null;
}

/**
 * Why an IP address is never a webhook receiver (link-local, unspecified, multicast, broadcast, and
 * the IPv4-mapped IPv6 forms of these), or null for any other address and for names. Takes a URL
 * host as WHATWG `URL.hostname` serializes it (`[…]` for IPv6) or a resolved address (no brackets).
 */
export function forbiddenWebhookAddress(host: string): string | null {
  const h = host.toLowerCase();
  const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  const v4 = parseIpv4(bare);
  if (v4) return ipv4Forbidden(...v4);
  if (!bare.includes(':')) return null;
  // A resolved IPv6 address may end in dotted IPv4 (::ffff:169.254.169.254) or carry a zone (%eth0).
  const unzoned = bare.split('%')[0] ?? '';
  const dotted = /^(.*:)(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.exec(unzoned);
  const tail = dotted ? parseIpv4(dotted[2]!) : null;
  const text = dotted && tail ? `${dotted[1]}${((tail[0] << 8) | tail[1]).toString(16)}:${((tail[2] << 8) | tail[3]).toString(16)}` : unzoned;
  const groups = parseIpv6(text);
  return groups === null ? null : ipv6Forbidden(groups);
}

/** Names reserved for local use (never resolved here: a public name could point anywhere). */
const LOCAL_NAME_SUFFIXES = ['.localhost', '.local', '.home.arpa', '.internal'];

/** True for loopback and private-network hosts, as WHATWG `URL.hostname` serializes them. */
export function isPrivateNetworkHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups !== null && ipv6Private(groups);
  }
  const v4 = parseIpv4(host);
  if (v4) return ipv4Private(v4[0], v4[1]);
  return host === 'localhost' || LOCAL_NAME_SUFFIXES.some((s) => host.endsWith(s));
}

/**
 * Why a webhook URL is refused, or null when it is accepted: `https://` anywhere but link-local,
 * unspecified, multicast and broadcast addresses; `http://` only to loopback and private-network
 * hosts (local POS software and LAN devices); no credentials in
 * the URL (deliveries are authenticated by signature) and no fragment.
 */
export function webhookUrlProblem(raw: string): string | null {
  if (raw.length > URL_MAX) return `at most ${URL_MAX} characters`;
  if (raw.trim() !== raw || raw === '') return 'url must be an absolute URL without surrounding spaces';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url is not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'url must use https:// (or http:// on the local network)';
  if (url.hostname === '') return 'url needs a host';
  if (url.username !== '' || url.password !== '') return 'url must not carry credentials; deliveries are signed with secreto';
  if (url.hash !== '' || raw.includes('#')) return 'url must not carry a fragment (#…)';
  const forbidden = forbiddenWebhookAddress(url.hostname);
  if (forbidden !== null) return `url must not point to a ${forbidden}: no webhook is delivered there`;
  if (url.protocol === 'http:' && !isPrivateNetworkHost(url.hostname)) {
    return 'http:// is only accepted for loopback and private-network hosts (127/8, 10/8, 172.16/12, 192.168/16, ::1, fc00::/7, localhost, *.local, *.home.arpa, *.internal); use https://';
  }
  return null;
}

export const webhookUrlSchema = z.string({ error: 'url must be a string' }).check((ctx) => {
  const problem = webhookUrlProblem(ctx.value);
  if (problem !== null) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
});

// ---------------------------------------------------------------- requests

/** POST /v1/webhooks. `eventos` omitted (or null) = all events. */
export const webhookCreateBody = z.strictObject({
  nombre: nombreWebhookSchema,
  url: webhookUrlSchema,
  secreto: secretoSchema,
  eventos: eventosSchema.nullable().optional(),
  prefijoCabeceras: prefijoCabecerasSchema.optional(),
});
export type WebhookCreateBody = z.infer<typeof webhookCreateBody>;

/** The states a caller may set; `suspendido` is the platform's. */
export const estadoWebhookPatchSchema = z.enum(['activo', 'inactivo'], {
  error: (issue) =>
    issue.input === 'suspendido'
      ? 'suspendido is set by the platform; send activo or inactivo'
      : 'estado must be activo or inactivo',
});

/** PATCH /v1/webhooks/{idWebhook}. `eventos: null` clears the subscription back to all events. */
export const webhookPatchBody = z.strictObject({
  nombre: nombreWebhookSchema.optional(),
  url: webhookUrlSchema.optional(),
  secreto: secretoSchema.optional(),
  eventos: eventosSchema.nullable().optional(),
  estado: estadoWebhookPatchSchema.optional(),
  prefijoCabeceras: prefijoCabecerasSchema.optional(),
});
export type WebhookPatchBody = z.infer<typeof webhookPatchBody>;

/** POST /v1/webhooks/{idWebhook}/clientes */
export const webhookClientesBody = z.strictObject({
  clientes: z
    .array(nifBasico, { error: 'clientes must be an array of NIFs' })
    .min(1, { error: 'clientes must list at least one NIF' })
    .max(CLIENTES_POR_LLAMADA, { error: `at most ${CLIENTES_POR_LLAMADA} NIFs per call` }),
});

export const idWebhookParams = z.object({ idWebhook: z.string().min(1).max(128) });
export const webhookClienteParams = z.object({ idWebhook: z.string().min(1).max(128), nif: nifBasico });

// ---------------------------------------------------------------- answers

/** The Webhook resource. `secreto` is write-only; `suspendidoEn`/`ultimoError` only when suspended. */
export const webhookSchema = z.object({
  idWebhook: z.string(),
  nombre: z.string(),
  url: z.string(),
  eventos: z.array(eventoWebhookSchema),
  estado: z.enum(ESTADOS_WEBHOOK),
  fallosConsecutivos: z.number().int(),
  suspendidoEn: timestampSchema.optional(),
  ultimoError: z.string().optional(),
  prefijoCabeceras: z.string(),
  creadoEn: timestampSchema,
  ultimaModificacion: timestampSchema,
});
export type Webhook = z.infer<typeof webhookSchema>;

export const webhooksListResponse = z.object({ webhooks: z.array(webhookSchema) });
export const webhookResponse = z.object({ webhook: webhookSchema, entorno: entornoSchema });
export const webhookClientesResponse = z.object({ idWebhook: z.string(), clientes: z.array(z.string()) });
export const webhookDeleteResponse = z.object({ idWebhook: z.string(), eliminado: z.literal(true) });

// ---------------------------------------------------------------- the delivery itself

/** `datos` of a delivery (spec "Events"): the common fields; the rest depends on regime and event. */
export const webhookDatosSchema = z.looseObject({
  sistemaFiscal: z.enum(['verifactu', 'ticketbai']),
  nifEmisor: z.string(),
  idFactura: z.string(),
  numeroFactura: z.string(),
  /** The verdict on the record: the spec's two values (an accepted cancellation: registrada). */
  estadoFactura: z.enum(['registrada', 'rechazada']),
});

/** The body POSTed to the webhook `url`: byte-identical on every retry. */
export const webhookEntregaSchema = z.object({
  evento: eventoWebhookSchema,
  idEntrega: z.uuid(),
  timestamp: timestampSchema,
  datos: webhookDatosSchema,
});
export type WebhookEntrega = z.infer<typeof webhookEntregaSchema>;

// ---------------------------------------------------------------- panel (support staff)

export const estadoEntregaSchema = z.enum(['pendiente', 'entregada', 'fallida']);

export const intentoEntregaSchema = z.object({
  intento: z.number().int(),
  codigoHttp: z.number().int().optional(),
  latenciaMs: z.number().int(),
  error: z.string().optional(),
  en: timestampSchema,
});

export const entregaSchema = z.object({
  idEntrega: z.string(),
  evento: eventoWebhookSchema,
  idFactura: z.string(),
  estado: estadoEntregaSchema,
  intentos: z.number().int(),
  siguienteIntentoEn: timestampSchema.optional(),
  ultimoCodigo: z.number().int().optional(),
  ultimoError: z.string().optional(),
  creadoEn: timestampSchema,
  entregadaEn: timestampSchema.optional(),
  registroIntentos: z.array(intentoEntregaSchema),
});

export const panelWebhookSchema = webhookSchema.extend({ entorno: entornoSchema, idCuenta: z.string(), clientes: z.array(z.string()) });

export const panelWebhooksResponse = z.object({ webhooks: z.array(panelWebhookSchema) });

export const panelEntregasQuery = z.object({
  estado: estadoEntregaSchema.optional(),
  limite: z.coerce.number().int().min(1).max(500).optional().catch(undefined),
});

export const panelEntregasResponse = z.object({
  webhook: panelWebhookSchema,
  entregas: z.array(entregaSchema),
});
