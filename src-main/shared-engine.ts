// A shop with several tills runs one engine on one computer; the other tills' desktop apps use it
// instead of forking their own: `userData/engine.json` names its URLs and a key. The shared engine
// must accept these tills' Host names (POS_HOST on the LAN, POS_ALLOWED_HOSTS on that computer).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { EngineState, EngineUrls } from './engine-host';

export const SHARED_ENGINE_FILE = 'engine.json';

const httpUrl = z.url({ protocol: /^https?$/ });

const sharedEngineSchema = z.strictObject({
  /** The billing API, e.g. `http://caja-principal:8780`. */
  url: httpUrl,
  /** The management API, e.g. `http://caja-principal:8781`. */
  manageUrl: httpUrl,
  /** An API key of the shop's account (its environment is the key's). */
  apiKey: z.string().min(1),
  /** The shared engine's panel with its token (`…:8782/?token=…`; fixed there with POS_PANEL_TOKEN). */
  panelUrl: httpUrl.optional(),
  /** The issuer this till sells for; default: the account's own company (GET /v1/cuenta). */
  nifEmisor: z.string().optional(),
});
export type SharedEngineConfig = z.infer<typeof sharedEngineSchema>;

/** The config when `engine.json` exists; a file that cannot be read is reported and ignored (own engine). */
export function loadSharedEngineConfig(userDataDir: string, warn: (message: string) => void): SharedEngineConfig | undefined {
  let raw: string;
  try {
    raw = readFileSync(path.join(userDataDir, SHARED_ENGINE_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    return sharedEngineSchema.parse(JSON.parse(raw));
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
    const panel = config.panelUrl ? new URL(config.panelUrl) : undefined;
    this.panelToken = panel?.searchParams.get('token') ?? undefined;
  }

  onChange(listener: (state: EngineState, urls: EngineUrls | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<EngineUrls> {
    const origin = (url: string) => new URL(url).origin;
    const urls = { billing: origin(this.config.url), manage: origin(this.config.manageUrl), panel: this.config.panelUrl ? origin(this.config.panelUrl) : '' };
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
