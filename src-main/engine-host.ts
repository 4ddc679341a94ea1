// Owns the engine's process: forks engine/src/bin/utility.ts in an Electron utilityProcess (so
// better-sqlite3 never blocks the UI thread), waits for its `ready`, restarts it with exponential
// back-off when it dies, and stops it cleanly ({type:'stop'}, then kill after a grace period).
// Electron is injected (`fork`), so the logic is unit-tested without it.
import { z } from 'zod';

export interface EngineUrls {
  billing: string;
  manage: string;
  panel: string;
}

/** The subset of Electron's UtilityProcess the host uses. */
export interface EngineChild {
  readonly pid?: number | undefined;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  postMessage(message: unknown): void;
  kill(): boolean;
}

export type ForkEngine = (modulePath: string, args: string[], options: { serviceName: string; env: Record<string, string | undefined>; stdio: 'inherit' | 'pipe' }) => EngineChild;

export type EngineState = 'arrancando' | 'listo' | 'reiniciando' | 'detenido';

export interface EngineHostLog {
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export interface EngineHostOptions {
  modulePath: string;
  env: Record<string, string | undefined>;
  fork: ForkEngine;
  log: EngineHostLog;
  /** First restart delay, doubled per consecutive crash up to `maxMs`. */
  backoff?: { baseMs: number; maxMs: number; resetAfterMs: number };
  stopTimeoutMs?: number;
  now?: () => number;
}

const childMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), urls: z.object({ billing: z.string(), manage: z.string(), panel: z.string() }), fingerprint256: z.string().optional() }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);

export class EngineHost {
  private child: EngineChild | undefined;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  private crashes = 0;
  private startedAt = 0;
  private stopping = false;
  private exited: Promise<void> = Promise.resolve();
  private firstReady: { resolve: (urls: EngineUrls) => void; reject: (error: Error) => void } | undefined;
  private readonly listeners = new Set<(state: EngineState, urls: EngineUrls | undefined) => void>();
  private readonly backoff: { baseMs: number; maxMs: number; resetAfterMs: number };
  private readonly now: () => number;
  state: EngineState = 'detenido';
  urls: EngineUrls | undefined;
  /** SHA-256 of the engine's certificate when it answers HTTPS (POS_HOST beyond loopback). */
  fingerprint256: string | undefined;
  /** How many times the engine was restarted after dying (for support staff and tests). */
  restarts = 0;

  constructor(private readonly options: EngineHostOptions) {
    this.backoff = options.backoff ?? { baseMs: 1000, maxMs: 30_000, resetAfterMs: 60_000 };
    this.now = options.now ?? Date.now;
  }

  /** Called on every state change (tray tooltip, reloading the window after a restart…). */
  onChange(listener: (state: EngineState, urls: EngineUrls | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forks the engine; resolves with its URLs once it listens (restarting it meanwhile if it dies). */
  start(): Promise<EngineUrls> {
    if (this.child || this.restartTimer) throw new Error('engine already started');
    this.stopping = false;
    const ready = new Promise<EngineUrls>((resolve, reject) => {
      this.firstReady = { resolve, reject };
    });
    this.spawn();
    return ready;
  }

  /** Asks the engine to stop (finishing in-flight requests, closing the database); kills it after the grace period. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) {
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
    }
    const child = this.child;
    if (child) {
      child.postMessage({ type: 'stop' });
      const grace = this.options.stopTimeoutMs ?? 10_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const killed = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.options.log.warn('engine did not stop in time; killing it', { graceMs: grace });
          child.kill();
          resolve();
        }, grace);
      });
      await Promise.race([this.exited, killed]);
      if (timer) clearTimeout(timer);
      await this.exited;
    }
    this.firstReady?.reject(new Error('engine stopped before it was ready'));
    this.firstReady = undefined;
    this.setState('detenido');
  }

  /** Restarts the engine now (support staff, from the tray). */
  async restart(): Promise<void> {
    await this.stop();
    this.stopping = false;
    this.spawn();
  }

  private spawn(): void {
    this.setState(this.restarts > 0 || this.crashes > 0 ? 'reiniciando' : 'arrancando');
    const child = this.options.fork(this.options.modulePath, [], { serviceName: 'till-engine', env: this.options.env, stdio: 'inherit' });
    this.child = child;
    this.startedAt = this.now();
    let resolveExit: () => void = () => {};
    this.exited = new Promise<void>((resolve) => {
      resolveExit = resolve;
    });
    child.on('message', (raw) => {
      const parsed = childMessage.safeParse(raw);
      if (!parsed.success) return;
      if (parsed.data.type === 'ready') {
        this.urls = parsed.data.urls;
        this.fingerprint256 = parsed.data.fingerprint256;
        this.options.log.info('engine ready', { ...parsed.data.urls, pid: child.pid });
        this.setState('listo');
        this.firstReady?.resolve(parsed.data.urls);
        this.firstReady = undefined;
      } else {
        this.options.log.error('engine reported an error', { message: parsed.data.message });
      }
    });
    child.on('exit', (code) => {
      this.child = undefined;
      resolveExit();
      if (this.stopping) {
        this.options.log.info('engine stopped', { code });
        return;
      }
      // A long healthy run forgets earlier crashes: the back-off starts again from its base.
      if (this.now() - this.startedAt >= this.backoff.resetAfterMs) this.crashes = 0;
      const delay = Math.min(this.backoff.baseMs * 2 ** this.crashes, this.backoff.maxMs);
      this.crashes += 1;
      this.restarts += 1;
      this.options.log.error('engine exited unexpectedly; restarting', { code, delayMs: delay, crashes: this.crashes });
      this.setState('reiniciando');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (!this.stopping) this.spawn();
      }, delay);
    });
  }

  private setState(state: EngineState): void {
    this.state = state;
    for (const listener of this.listeners) listener(state, this.urls);
  }
}
