// One writer at a time on the AEAT ledger's connection. A request's ledger work runs in a
// transaction held open while libxml2 still validates the document (committed only if it is
// valid), and better-sqlite3 would silently fold any other write on the connection into that
// transaction (a nested db.transaction() becomes a savepoint): a refused request's log row, a
// reset, another request's records would vanish with its rollback. So every write, and every
// read that must not see a transaction still open, takes its turn here.

export class LedgerTurn {
  private busy = false;
  private readonly waiting: Array<() => void> = [];

  /**
   * Runs `work` once every turn taken before it has ended. With no turn in progress it starts at
   * once, in the caller's tick (a write then lands exactly when it did before turns existed).
   */
  async run<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy = true;
    try {
      return await work();
    } finally {
      // Handed straight to the next in line: busy never drops between two queued turns.
      const next = this.waiting.shift();
      if (next) next();
      else this.busy = false;
    }
  }
}

/**
 * The id source behind a speculative request: an id drawn for a request whose document then
 * fails its schema is handed to the next request instead, so the requests that are processed
 * get the same ids, in the same order, as when ids were drawn only after validation.
 */
export class IdReserve {
  private readonly returned: string[] = [];

  constructor(private readonly draw: () => string) {}

  take(): string {
    return this.returned.pop() ?? this.draw();
  }

  giveBack(id: string): void {
    this.returned.push(id);
  }
}
