/**
 * Signing ahead of the commit, one chain at a time (TicketBAI: each signature chains the previous
 * SignatureValue). A request of a chain signs as soon as the previous request of that chain has
 * signed — not committed — so a chain's signatures follow each other on the worker pool while the
 * main thread commits, and different chains sign in parallel.
 *
 * What a request signs against is only a guess made outside the transaction. The commit callback
 * must check, in its transaction, that the stored chain head is the one it signed against and
 * otherwise sign again there against the stored head: that check, not this class, is what keeps
 * a chain whole (never a record chained to one not stored, never a fork). This class keeps the
 * guesses good: when a commit fails or had to sign again, the chain's epoch moves and the next
 * request no longer trusts the signatures made in flight: it waits until every earlier request
 * of the chain has settled and reads the head from the database.
 */

/** What the next record of a chain chains to: the chain's length and its last link (null: empty chain). */
export interface ChainTail<Link> {
  length: number;
  link: Link | null;
}

interface Turn<Link> {
  /** The tail after this request's signature, with the epoch it was made in; null when it did not sign. */
  signed: Promise<{ tail: ChainTail<Link>; epoch: number } | null>;
  /** Resolved once this request and every earlier one of the chain have committed or failed. */
  settled: Promise<void>;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export class ChainPipeline<Link> {
  private readonly last = new Map<string, Turn<Link>>();
  private readonly epochs = new Map<string, number>();

  /**
   * @param readHead the stored head, read when no in-flight signature can be trusted
   * @param sign signs against `tail`; gives its result and the tail after it
   * @param commit commits in the group commit; `stored` says whether the record signed ahead was
   *   stored as the chain's next record (false: a replay, or signed again in the transaction)
   */
  async run<Signed, T>(
    chainKey: string,
    readHead: () => ChainTail<Link>,
    sign: (tail: ChainTail<Link>) => Promise<{ signed: Signed; next: ChainTail<Link> }>,
    commit: (signed: Signed, tail: ChainTail<Link>) => Promise<{ value: T; stored: boolean }>,
  ): Promise<T> {
    const previous = this.last.get(chainKey);
    const signed = deferred<{ tail: ChainTail<Link>; epoch: number } | null>();
    const settled = deferred<void>();
    const turn: Turn<Link> = { signed: signed.promise, settled: settled.promise };
    this.last.set(chainKey, turn);
    let stored = false;
    try {
      let from = previous ? await previous.signed : null;
      if (from === null || from.epoch !== this.epoch(chainKey)) {
        if (previous) await previous.settled;
        from = { tail: readHead(), epoch: this.epoch(chainKey) };
      }
      let made: { signed: Signed; next: ChainTail<Link> };
      try {
        made = await sign(from.tail);
      } catch (error) {
        signed.resolve(null);
        throw error;
      }
      signed.resolve({ tail: made.next, epoch: from.epoch });
      const outcome = await commit(made.signed, from.tail);
      stored = outcome.stored;
      return outcome.value;
    } finally {
      signed.resolve(null); // no-op when already resolved
      if (!stored) this.epochs.set(chainKey, this.epoch(chainKey) + 1);
      if (previous) await previous.settled;
      settled.resolve();
      if (this.last.get(chainKey) === turn) {
        this.last.delete(chainKey);
        this.epochs.delete(chainKey);
      }
    }
  }

  private epoch(chainKey: string): number {
    return this.epochs.get(chainKey) ?? 0;
  }
}
