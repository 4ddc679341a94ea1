/**
 * Signing ahead of the commit, one chain at a time (TicketBAI: each signature chains the previous
 * SignatureValue). The requests of a chain that arrive while a signature job is out are signed
 * together in the next job, in arrival order, each chained to the one before (a group signature,
 * as the group commit groups transactions): one round trip to the worker signs them all. A job
 * starts as soon as the previous job of the chain has signed — not committed — so a chain's
 * signatures follow each other on the worker pool while the main thread commits, and different
 * chains sign in parallel.
 *
 * What a request signs against is only a guess made outside the transaction. The commit callback
 * must check, in its transaction, that the stored chain head is the one it signed against and
 * otherwise sign again there against the stored head: that check, not this class, is what keeps
 * a chain whole (never a record chained to one not stored, never a fork). This class keeps the
 * guesses good: when a commit fails or had to sign again, the chain's epoch moves and the next
 * job no longer trusts the signatures made in flight: it waits until every earlier request of
 * the chain has settled and reads the head from the database.
 */

/** What the next record of a chain chains to: the chain's length and its last link (null: empty chain). */
export interface ChainTail<Link> {
  length: number;
  link: Link | null;
}

/** Signs `inputs` in order, the first chained to `tail`, each next one to the one before. */
export type SignChain<Link, Input, Signed> = (tail: ChainTail<Link>, inputs: Input[]) => Promise<{ signed: Signed; next: ChainTail<Link> }[]>;

interface Member<Link, Signed> {
  input: unknown;
  readHead: () => ChainTail<Link>;
  commit: (signed: Signed, tail: ChainTail<Link>) => Promise<{ value: unknown; stored: boolean }>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Chain<Link, Signed> {
  waiting: Member<Link, Signed>[];
  signing: boolean;
  /** The tail after the last signature made, with the epoch it was made in; null: read the store. */
  tail: { tail: ChainTail<Link>; epoch: number } | null;
  epoch: number;
  /** Resolved once every request signed so far has committed or failed. */
  settled: Promise<void>;
  /** Requests not settled yet. */
  open: number;
}

export class ChainPipeline<Link, Input, Signed> {
  private readonly chains = new Map<string, Chain<Link, Signed>>();

  constructor(private readonly signChain: SignChain<Link, Input, Signed>) {}

  /**
   * @param readHead the stored head, read when no signature made in flight can be trusted
   * @param commit commits in the group commit; `stored` says whether the record signed ahead was
   *   stored as the chain's next record (false: a replay, refused, or signed again in the transaction)
   */
  run<T>(
    chainKey: string,
    input: Input,
    readHead: () => ChainTail<Link>,
    commit: (signed: Signed, tail: ChainTail<Link>) => Promise<{ value: T; stored: boolean }>,
  ): Promise<T> {
    let chain = this.chains.get(chainKey);
    if (!chain) {
      chain = { waiting: [], signing: false, tail: null, epoch: 0, settled: Promise.resolve(), open: 0 };
      this.chains.set(chainKey, chain);
    }
    const c = chain;
    return new Promise<T>((resolve, reject) => {
      c.waiting.push({ input, readHead, commit, resolve: resolve as (value: unknown) => void, reject });
      c.open++;
      if (!c.signing) void this.signNext(chainKey, c);
    });
  }

  private async signNext(chainKey: string, chain: Chain<Link, Signed>): Promise<void> {
    chain.signing = true;
    const members = chain.waiting.splice(0);
    const trusted = chain.tail !== null && chain.tail.epoch === chain.epoch ? chain.tail : null;
    const previous = chain.settled;
    let done!: () => void;
    chain.settled = new Promise<void>((resolve) => (done = resolve));
    let from: { tail: ChainTail<Link>; epoch: number };
    let made: { signed: Signed; next: ChainTail<Link> }[];
    try {
      if (trusted) from = trusted;
      else {
        await previous;
        from = { tail: members[0]!.readHead(), epoch: chain.epoch };
      }
      made = await this.signChain(from.tail, members.map((m) => m.input as Input));
    } catch (error) {
      for (const m of members) m.reject(error);
      chain.tail = null;
      chain.signing = false;
      this.finish(chainKey, chain, members.length, previous, done);
      return;
    }
    chain.tail = { tail: made[made.length - 1]!.next, epoch: from.epoch };
    // Asked for in order, so the group commit runs them in order, before any later job's.
    const commits = members.map((m, i) => {
      const tail = i === 0 ? from.tail : made[i - 1]!.next;
      return m.commit(made[i]!.signed, tail).then(
        (outcome) => {
          m.resolve(outcome.value);
          return outcome.stored;
        },
        (error: unknown) => {
          m.reject(error);
          return false;
        },
      );
    });
    chain.signing = false;
    if (chain.waiting.length > 0) void this.signNext(chainKey, chain);
    const stored = await Promise.all(commits);
    if (stored.includes(false)) chain.epoch++;
    this.finish(chainKey, chain, members.length, previous, done);
  }

  /** Settles a job's requests after every earlier one, and forgets an idle chain. */
  private finish(chainKey: string, chain: Chain<Link, Signed>, count: number, previous: Promise<void>, done: () => void): void {
    void previous.then(() => {
      chain.open -= count;
      done();
      if (chain.open === 0 && this.chains.get(chainKey) === chain) this.chains.delete(chainKey);
    });
    if (!chain.signing && chain.waiting.length > 0) void this.signNext(chainKey, chain);
  }
}
