// ChainPipeline (engine/src/issuing/chain-pipeline.ts) against a fake chain store whose "transaction"
// makes the same check as the TicketBAI service: use the signature made ahead only if the stored
// head is the one it was signed against, else sign again against the stored head.
import { describe, expect, it } from 'vitest';
import { ChainPipeline, type ChainTail } from '../../../engine/src/issuing/chain-pipeline';

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

interface Outcome {
  name: string;
  /** The link the stored record chains to. */
  chainedTo: string | null;
  signedAgain: boolean;
}

function fakeChains() {
  const heads = new Map<string, ChainTail<string>>();
  const signs: string[] = [];
  const reads: string[] = [];
  const pipeline = new ChainPipeline<string>();
  // Commits run one after the other in the order they were asked for, as the group commit runs them.
  let commits: Promise<unknown> = Promise.resolve();
  const head = (key: string) => heads.get(key) ?? { length: 0, link: null };
  function issue(key: string, name: string, opts: { signGate?: Promise<void>; commitGate?: Promise<void>; failCommit?: boolean } = {}): Promise<Outcome> {
    return pipeline.run(
      key,
      () => {
        reads.push(name);
        return head(key);
      },
      async (tail) => {
        signs.push(`${name}<-${tail.link}`);
        await opts.signGate;
        return { signed: name, next: { length: tail.length + 1, link: name } };
      },
      (signed, tail) => {
        const commit = commits.then(async () => {
          await opts.commitGate;
          if (opts.failCommit) throw new Error(`commit of ${name} failed`);
          const stored = head(key);
          const ahead = stored.length === tail.length && stored.link === tail.link;
          heads.set(key, { length: stored.length + 1, link: signed });
          return { value: { name, chainedTo: stored.link, signedAgain: !ahead }, stored: ahead };
        });
        commits = commit.catch(() => undefined);
        return commit;
      },
    );
  }
  return { issue, signs, reads, head };
}

describe('ChainPipeline', () => {
  it("signs a chain's next record as soon as the previous one is signed, before it commits", async () => {
    const c = fakeChains();
    const sign1 = gate();
    const commit1 = gate();
    const first = c.issue('k', 'A', { signGate: sign1.promise, commitGate: commit1.promise });
    const second = c.issue('k', 'B');
    await settle();
    expect(c.signs).toEqual(['A<-null']); // B waits for A's signature
    sign1.open();
    await settle();
    expect(c.signs).toEqual(['A<-null', 'B<-A']); // A has not committed yet
    commit1.open();
    expect(await Promise.all([first, second])).toEqual([
      { name: 'A', chainedTo: null, signedAgain: false },
      { name: 'B', chainedTo: 'A', signedAgain: false },
    ]);
    expect(c.reads).toEqual(['A']); // the head was read once, when the chain was idle
    expect(c.head('k')).toEqual({ length: 2, link: 'B' });
  });

  it('different chains sign at the same time', async () => {
    const c = fakeChains();
    const sign = gate();
    const outcomes = Promise.all([c.issue('k1', 'X', { signGate: sign.promise }), c.issue('k2', 'Y', { signGate: sign.promise })]);
    await settle();
    expect(c.signs).toEqual(['X<-null', 'Y<-null']);
    sign.open();
    await outcomes;
  });

  it('a failed commit: the next record, signed against it, is signed again against the stored head; later ones read the head from the store', async () => {
    const c = fakeChains();
    await c.issue('k', 'H'); // a stored head to start from
    const signA = gate();
    const commitA = gate();
    const commitB = gate();
    const a = c.issue('k', 'A', { signGate: signA.promise, commitGate: commitA.promise, failCommit: true });
    const b = c.issue('k', 'B', { commitGate: commitB.promise });
    signA.open();
    await settle();
    expect(c.signs).toEqual(['H<-null', 'A<-H', 'B<-A']);
    commitA.open();
    await expect(a).rejects.toThrow('commit of A failed');
    // C comes after A's failure: it must not trust B's signature (made against A), so it waits
    // until B has settled and reads the stored head.
    const cc = c.issue('k', 'C');
    await settle();
    expect(c.signs).toEqual(['H<-null', 'A<-H', 'B<-A']);
    commitB.open();
    expect(await b).toEqual({ name: 'B', chainedTo: 'H', signedAgain: true });
    expect(await cc).toEqual({ name: 'C', chainedTo: 'B', signedAgain: false });
    expect(c.signs).toEqual(['H<-null', 'A<-H', 'B<-A', 'C<-B']);
    expect(c.reads).toEqual(['H', 'A', 'C']); // H and A found the chain idle
    // Pipelining resumes from there.
    expect(await Promise.all([c.issue('k', 'D'), c.issue('k', 'E')])).toEqual([
      { name: 'D', chainedTo: 'C', signedAgain: false },
      { name: 'E', chainedTo: 'D', signedAgain: false },
    ]);
    expect(c.head('k')).toEqual({ length: 5, link: 'E' });
  });

  it('a failed signature rejects its request only; the next reads the head once the chain has settled', async () => {
    const c = fakeChains();
    await c.issue('k', 'H');
    const p = new ChainPipeline<string>();
    const failing = p.run('k', () => c.head('k'), () => Promise.reject(new Error('worker gone')), () => Promise.reject(new Error('never committed')));
    await expect(failing).rejects.toThrow('worker gone');
    expect(await c.issue('k', 'N')).toEqual({ name: 'N', chainedTo: 'H', signedAgain: false });
  });
});
