/**
 * Requests to stop (the desktop host's message, a signal), listened for from the entry's first
 * line rather than once the engine has started. A request that arrives while the engine starts
 * is kept and honoured as soon as the start is done; before, the host's stop message sent during
 * the start was lost and the host killed the engine after its grace period. A killed engine loses
 * nothing acknowledged; a clean stop also closes the database and lets the workers end their round.
 */
export class StopRequests {
  private firstReason: string | undefined;
  private handler: ((reason: string) => void) | undefined;

  /** Records a request; the first one runs the handler (at once if it is already given). */
  readonly request = (reason: string): void => {
    if (this.firstReason !== undefined) return;
    this.firstReason = reason;
    this.handler?.(reason);
  };

  /** Why the engine was first asked to stop, or undefined while nobody has asked. */
  get reason(): string | undefined {
    return this.firstReason;
  }

  /** Runs `handler` for the first request: now, if one came while the engine started. */
  handleWith(handler: (reason: string) => void): void {
    this.handler = handler;
    if (this.firstReason !== undefined) handler(this.firstReason);
  }
}
