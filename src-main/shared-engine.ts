// A shop with several tills runs one engine on one computer; the other tills' desktop apps use it
// instead of forking their own: `userData/engine.json` (what the server's POST /panel/v1/cajas
// answers as `engineJson`) names its https URLs, the certificate fingerprint the till pins, and the
// till's own token and identity. The shared engine must accept these tills' Host names
// (POS_HOST on the LAN, POS_ALLOWED_HOSTS on that computer).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { EngineState, EngineUrls } from './engine-host';
import { FINGERPRINT_PATTERN, normalizeFingerprint } from './pinned-tls';

export const SHARED_ENGINE_FILE = 'engine.json';

/** Only HTTPS: the shop's network is not trusted (the engine's TLS, its certificate pinned). */
const httpsUrl = z.url({ protocol: /^https$/ });

const sharedEngineSchema = z
  .strictObject({
    /** The billing API, e.g. `https://caja-principal.local:8780`. */
    url: httpsUrl,
    /** The management API, e.g. `https://caja-principal.local:8781`. */
    manageUrl: httpsUrl,
    /** The shared engine's panel (the till UI), e.g. `https://caja-principal.local:8782`. */
    panelUrl: httpsUrl,
    /** SHA-256 of the engine's certificate (`AA:BB:…`, printed in its banner): the only one trusted. */
    fingerprint256: z.string().regex(FINGERPRINT_PATTERN),
    /** This till's own panel token (POST /panel/v1/cajas on the server): revocable alone. */
    tillToken: z.string().min(1),
    /** The identity that token is bound to: this till sells as it. */
    idMaquina: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
    /** The issuer this till sells for. */
    nifEmisor: z.string().optional(),
  })
  .refine((c) => new Set([c.url, c.manageUrl, c.panelUrl].map((u) => new URL(u).hostname)).size === 1, {
    error: 'url, manageUrl and panelUrl must name one server (one pinned certificate)',
  });
export type SharedEngineConfig = z.infer<typeof sharedEngineSchema>;

/**
 * Why the file may not be trusted: writable by others than its owner (group/world), or owned by
 * another user than the one running the till (POSIX; Windows has neither notion here).
 */
function untrustedFile(file: string): string | undefined {
  const stat = statSync(file);
  if (process.platform === 'win32') return undefined;
  if ((stat.mode & 0o022) !== 0) return `is writable by group or others (mode ${(stat.mode & 0o777).toString(8)}; chmod 600 it)`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid && stat.uid !== 0) return `belongs to another user (uid ${stat.uid})`;
  return undefined;
}

/**
 * The config when `engine.json` exists and can be trusted; a file that cannot be read, is not
 * valid (plain http, no pinned fingerprint…), or that others may have written is reported and
 * ignored (the till starts its own engine).
 */
export function loadSharedEngineConfig(userDataDir: string, warn: (message: string) => void): SharedEngineConfig | undefined {
  const file = path.join(userDataDir, SHARED_ENGINE_FILE);
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const distrust = untrustedFile(file);
  if (distrust) {
    warn(`${SHARED_ENGINE_FILE} ${distrust}: ignored; starting this till's own engine`);
    return undefined;
  }
  try {
    const config = sharedEngineSchema.parse(JSON.parse(raw));
    return { ...config, fingerprint256: normalizeFingerprint(config.fingerprint256) };
  } catch (error) {
    warn(`${SHARED_ENGINE_FILE} is not valid (${error instanceof Error ? error.message : String(error)}); starting this till's own engine`);
    return undefined;
  }
}

/** What main needs of an engine: the same shape as EngineHost, for an engine another computer runs. */
export class SharedEngine {
  state: EngineState = 'detenido';
  urls: EngineUrls | undefined;
  readonly panelToken: string | undefined;
  private readonly listeners = new Set<(state: EngineState, urls: EngineUrls | undefined) => void>();

  constructor(private readonly config: SharedEngineConfig) {
    this.panelToken = config.tillToken;
  }

  onChange(listener: (state: EngineState, urls: EngineUrls | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<EngineUrls> {
    const origin = (url: string) => new URL(url).origin;
    const urls = { billing: origin(this.config.url), manage: origin(this.config.manageUrl), panel: origin(this.config.panelUrl) };
    this.urls = urls;
    this.state = 'listo';
    for (const listener of this.listeners) listener(this.state, urls);
    return urls;
  }

  /** Nothing to stop or restart: the engine belongs to another computer. */
  async stop(): Promise<void> {
    this.state = 'detenido';
  }

  async restart(): Promise<void> {
    await this.start();
  }
}
