/**
 * Signing ahead of the commit, one chain at a time. The requests of a chain that arrive while a
 * job is out are signed together in the next job, in arrival order, each chained to the one before
 * (a group signature, as the group commit groups transactions): one round trip to the worker signs
 * them all. Different chains sign in parallel.
 *
 * When a job's next link is known depends on the chain:
 * - TicketBAI (`SignChain`): each signature chains the previous SignatureValue, so the next job
 *   starts as soon as the previous job has signed — not committed — and a chain's signatures
 *   follow each other on the worker pool while the main thread commits.
 * - VeriFactu and «NO VERI*FACTU» (`BuildThenSign`): a record links to the previous record's
 *   huella, known once the record is built, so the next job is built as soon as the previous one
 *   is built and its signatures go out while the previous job's are still being made (up to
 *   `groupsSigning` jobs of a chain at once): the worker never idles between a chain's groups,
 *   and no group waits for the thread hop of the one before it. A job's commits are still asked
 *   for only after every earlier job's, so the group commit runs a chain's records in order.
 *
 * What a request signs against is only a guess made outside the transaction. The commit callback
 * must check, in its transaction, that the stored chain head is the one it signed against and
 * otherwise sign again there against the stored head: that check, not this class, is what keeps
 * a chain whole (never a record chained to one not stored, never a fork). This class keeps the
 * guesses good: when a commit fails or had to sign again, or a job's signing failed, the chain's
 * epoch moves and the next job no longer trusts the links made in flight: it waits until every
 * earlier request of the chain has settled and reads the head from the database.
 */

/** What the next record of a chain chains to: the chain's length and its last link (null: empty chain). */
export interface ChainTail<Link> {
  length: number;
  link: Link | null;
}

/** Signs `inputs` in order, the first chained to `tail`, each next one to the one before. */
export type SignChain<Link, Input, Signed> = (tail: ChainTail<Link>, inputs: Input[]) => Promise<{ signed: Signed; next: ChainTail<Link> }[]>;

/**
 * A chain whose links are known when its records are built, before they are signed: `build`
 * builds `inputs` in order against `tail` and returns at once each one's tail after it, and the
 * signatures to come.
 */
export interface BuildThenSign<Link, Input, Signed> {
  build: (tail: ChainTail<Link>, inputs: Input[]) => { next: ChainTail<Link>[]; signed: Promise<Signed[]> };
  /** Jobs of one chain whose signatures may be out at once (≥ 1). */
  groupsSigning: number;
}

/** One job, started: the tails after each of its inputs, and their signatures. */
interface Started<Link, Signed> {
  next: Promise<ChainTail<Link>[]> | ChainTail<Link>[];
  signed: Promise<Signed[]>;
}

interface Member<Link, Signed> {
  input: unknown;
  readHead: () => ChainTail<Link>;
  commit: (signed: Signed, tail: ChainTail<Link>) => Promise<{ value: unknown; stored: boolean }>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Chain<Link, Signed> {
  waiting: Member<Link, Signed>[];
  /** A job whose tails are not known yet: the next job waits for them. */
  building: boolean;
  /** Jobs whose signatures are not back yet. */
  signing: number;
  /** The tail after the last job built, with the epoch it was built in; null: read the store. */
  tail: { tail: ChainTail<Link>; epoch: number } | null;
  epoch: number;
  /** Resolved once every request of the jobs started so far has committed or failed. */
  settled: Promise<void>;
  /** Resolved once every request of the jobs started so far has asked for its commit (or failed). */
  asked: Promise<void>;
  /** Requests not settled yet. */
  open: number;
}

export class ChainPipeline<Link, Input, Signed> {
  private readonly chains = new Map<string, Chain<Link, Signed>>();
  private readonly start: (tail: ChainTail<Link>, inputs: Input[]) => Started<Link, Signed>;
  private readonly groupsSigning: number;

  constructor(chainer: SignChain<Link, Input, Signed> | BuildThenSign<Link, Input, Signed>) {
    if (typeof chainer === 'function') {
      // The next link is the signature: known only when it is back.
      this.start = (tail, inputs) => {
        const made = chainer(tail, inputs);
        return { next: made.then((m) => m.map((x) => x.next)), signed: made.then((m) => m.map((x) => x.signed)) };
      };
      this.groupsSigning = 1;
    } else {
      this.start = (tail, inputs) => chainer.build(tail, inputs);
      this.groupsSigning = Math.max(1, Math.floor(chainer.groupsSigning));
    }
  }

  /**
   * @param readHead the stored head, read when no link made in flight can be trusted
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
      chain = { waiting: [], building: false, signing: 0, tail: null, epoch: 0, settled: Promise.resolve(), asked: Promise.resolve(), open: 0 };
      this.chains.set(chainKey, chain);
    }
    const c = chain;
    return new Promise<T>((resolve, reject) => {
      c.waiting.push({ input, readHead, commit, resolve: resolve as (value: unknown) => void, reject });
      c.open++;
      this.startNext(chainKey, c);
    });
  }

  private startNext(chainKey: string, chain: Chain<Link, Signed>): void {
    if (!chain.building && chain.signing < this.groupsSigning && chain.waiting.length > 0) void this.job(chainKey, chain);
  }

  private async job(chainKey: string, chain: Chain<Link, Signed>): Promise<void> {
    chain.building = true;
    chain.signing++;
    const members = chain.waiting.splice(0);
    const trusted = chain.tail !== null && chain.tail.epoch === chain.epoch ? chain.tail : null;
    const previous = chain.settled;
    const earlierAsked = chain.asked;
    let done!: () => void;
    let askedDone!: () => void;
    chain.settled = new Promise<void>((resolve) => (done = resolve));
    chain.asked = new Promise<void>((resolve) => (askedDone = resolve));
    // This job's commits are asked for after every earlier job's, never before: chain order.
    const failed = (error: unknown) => {
      for (const m of members) m.reject(error);
      // Links made in flight after this job may chain to records never stored: trust none of them.
      chain.epoch++;
      chain.tail = null;
      void earlierAsked.then(askedDone);
      this.finish(chainKey, chain, members.length, previous, done);
    };
    let from: { tail: ChainTail<Link>; epoch: number };
    let started: Started<Link, Signed>;
    let tails: ChainTail<Link>[];
    try {
      if (trusted) from = trusted;
      else {
        await previous;
        from = { tail: members[0]!.readHead(), epoch: chain.epoch };
      }
      started = this.start(from.tail, members.map((m) => m.input as Input));
      // Never an unhandled rejection while the signatures wait for the tails (TicketBAI: the same promise).
      started.signed.catch(() => undefined);
      tails = await started.next;
    } catch (error) {
      chain.building = false;
      chain.signing--;
      failed(error);
      return;
    }
    chain.tail = { tail: tails[tails.length - 1]!, epoch: from.epoch };
    chain.building = false;
    // BuildThenSign: the next job is built now, while this one's signatures are out.
    this.startNext(chainKey, chain);
    let made: Signed[];
    try {
      made = await started.signed;
    } catch (error) {
      chain.signing--;
      failed(error);
      return;
    }
    chain.signing--;
    // A slot is free: the next group need not wait for the earlier groups' signatures.
    this.startNext(chainKey, chain);
    await earlierAsked;
    // Asked for in order, so the group commit runs them in order, before any later job's.
    const commits = members.map((m, i) => {
      const tail = i === 0 ? from.tail : tails[i - 1]!;
      return m.commit(made[i]!, tail).then(
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
    askedDone();
    this.startNext(chainKey, chain);
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
    this.startNext(chainKey, chain);
  }
}
