/**
 * Requests to stop (a signal, the desktop host's message), caught from the entry's first line
 * rather than once the engine has started. A request that arrives while the engine starts is
 * kept and honoured as soon as the start is done: with no handler installed yet, Node's default
 * SIGINT/SIGTERM would kill the process mid-start, and the host's stop message would be lost.
 * A process that is killed anyway loses nothing acknowledged; a clean stop still closes the
 * database, checkpoints the log and lets the workers finish their round.
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

  /** Whether a handler is given, that is, whether the engine has finished starting. */
  get handled(): boolean {
    return this.handler !== undefined;
  }

  /** Runs `handler` for the first request: now, if one came while the engine started. */
  handleWith(handler: (reason: string) => void): void {
    this.handler = handler;
    if (this.firstReason !== undefined) handler(this.firstReason);
  }
}
