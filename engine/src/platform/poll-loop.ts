import type { Logger } from './logger';

/**
 * The loop every background worker runs: one pass at a time, again after `pollMs`, or at once
 * when `wake()` says new work was committed (a wake during a pass runs another right after it).
 */
export class PollLoop {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = true;
  private wakeRequested = false;
  private current: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<unknown>,
    private readonly pollMs: () => number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** No new pass starts; resolves when the one in flight has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current.catch(() => undefined);
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = true;
      this.current = this.pass()
        .catch((error: unknown) => this.logger.error(`${this.name} pass failed`, { error: String(error) }))
        .finally(() => {
          this.running = false;
          const again = this.wakeRequested;
          this.wakeRequested = false;
          this.schedule(again ? 0 : this.pollMs());
        });
    }, delayMs);
    this.timer.unref?.();
  }
}
