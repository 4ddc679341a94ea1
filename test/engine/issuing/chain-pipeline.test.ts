// ChainPipeline (engine/src/issuing/chain-pipeline.ts) against a fake chain store whose "transaction"
// makes the same check as the TicketBAI service: use the signature made ahead only if the stored
// head is the one it was signed against, else sign again against the stored head. Commits run
// one after the other in the order they were asked for, as the group commit runs them.
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
  /** One entry per signature job: the names it signed and what the first was chained to. */
  const jobs: string[] = [];
  const reads: string[] = [];
  const signGates: Promise<void>[] = [];
  let failNextSign = false;
  const pipeline = new ChainPipeline<string, string, string>(async (tail, names) => {
    jobs.push(`${names.join('+')}<-${tail.link}`);
    await signGates.shift();
    if (failNextSign) {
      failNextSign = false;
      throw new Error('worker gone');
    }
    return names.map((name, i) => ({ signed: name, next: { length: tail.length + i + 1, link: name } }));
  });
  let commits: Promise<unknown> = Promise.resolve();
  const head = (key: string) => heads.get(key) ?? { length: 0, link: null };
  function issue(key: string, name: string, opts: { commitGate?: Promise<void>; failCommit?: boolean } = {}): Promise<Outcome> {
    return pipeline.run(
      key,
      name,
      () => {
        reads.push(name);
        return head(key);
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
  return {
    issue,
    jobs,
    reads,
    head,
    holdNextSign: () => {
      const g = gate();
      signGates.push(g.promise);
      return g;
    },
    failNextSign: () => (failNextSign = true),
  };
}

describe('ChainPipeline', () => {
  it("signs a chain's next requests as soon as the previous job has signed, before it commits; those that arrived meanwhile in one job", async () => {
    const c = fakeChains();
    const signA = c.holdNextSign();
    const commitA = gate();
    const outcomes = Promise.all([c.issue('k', 'A', { commitGate: commitA.promise }), c.issue('k', 'B'), c.issue('k', 'C')]);
    await settle();
    expect(c.jobs).toEqual(['A<-null']); // B and C wait for A's signature
    signA.open();
    await settle();
    expect(c.jobs).toEqual(['A<-null', 'B+C<-A']); // A has not committed yet
    commitA.open();
    expect(await outcomes).toEqual([
      { name: 'A', chainedTo: null, signedAgain: false },
      { name: 'B', chainedTo: 'A', signedAgain: false },
      { name: 'C', chainedTo: 'B', signedAgain: false },
    ]);
    expect(c.reads).toEqual(['A']); // the head was read once, when the chain was idle
    expect(c.head('k')).toEqual({ length: 3, link: 'C' });
  });

  it('different chains sign at the same time', async () => {
    const c = fakeChains();
    const sign = c.holdNextSign();
    const sign2 = c.holdNextSign();
    const outcomes = Promise.all([c.issue('k1', 'X'), c.issue('k2', 'Y')]);
    await settle();
    expect(c.jobs).toEqual(['X<-null', 'Y<-null']);
    sign.open();
    sign2.open();
    await outcomes;
  });

  it('a failed commit: the next record, signed against it, is signed again against the stored head; later ones read the head from the store', async () => {
    const c = fakeChains();
    await c.issue('k', 'H'); // a stored head to start from
    const signA = c.holdNextSign();
    const commitA = gate();
    const commitB = gate();
    const a = c.issue('k', 'A', { commitGate: commitA.promise, failCommit: true });
    const b = c.issue('k', 'B', { commitGate: commitB.promise });
    signA.open();
    await settle();
    expect(c.jobs).toEqual(['H<-null', 'A<-H', 'B<-A']);
    commitA.open();
    await expect(a).rejects.toThrow('commit of A failed');
    // C comes after A's failure: it must not trust B's signature (made against A), so it waits
    // until B has settled and reads the stored head.
    const cc = c.issue('k', 'C');
    await settle();
    expect(c.jobs).toEqual(['H<-null', 'A<-H', 'B<-A']);
    commitB.open();
    expect(await b).toEqual({ name: 'B', chainedTo: 'H', signedAgain: true });
    expect(await cc).toEqual({ name: 'C', chainedTo: 'B', signedAgain: false });
    expect(c.jobs).toEqual(['H<-null', 'A<-H', 'B<-A', 'C<-B']);
    expect(c.reads).toEqual(['H', 'C']); // A chained to H's signature, trusted: H was stored
    // Signing ahead resumes from there.
    expect(await Promise.all([c.issue('k', 'D'), c.issue('k', 'E')])).toEqual([
      { name: 'D', chainedTo: 'C', signedAgain: false },
      { name: 'E', chainedTo: 'D', signedAgain: false },
    ]);
    expect(c.head('k')).toEqual({ length: 5, link: 'E' });
  });

  it("a failed signature job rejects its requests only; the chain's next request reads the head", async () => {
    const c = fakeChains();
    await c.issue('k', 'H');
    c.failNextSign();
    const failed = await Promise.allSettled([c.issue('k', 'A'), c.issue('k', 'B')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(c.jobs).toEqual(['H<-null', 'A<-H', 'B<-H']);
    expect(await c.issue('k', 'N')).toEqual({ name: 'N', chainedTo: 'B', signedAgain: false });
  });

  it('a head that cannot be read rejects the requests waiting for it, and the chain goes on', async () => {
    const p = new ChainPipeline<string, string, string>(async (tail, names) => names.map((n, i) => ({ signed: n, next: { length: tail.length + i + 1, link: n } })));
    const commit = async (signed: string) => ({ value: signed, stored: true });
    await expect(p.run('k', 'A', () => { throw new Error('SQLITE_BUSY'); }, commit)).rejects.toThrow('SQLITE_BUSY');
    expect(await p.run('k', 'B', () => ({ length: 0, link: null }), commit)).toBe('B');
  });
});

/**
 * A VeriFactu-like chain (BuildThenSign): a record's link is known when it is built, its signature
 * comes later. Each job's signatures are held until the test releases them, in any order.
 */
function fakeBuiltChains() {
  let head: ChainTail<string> = { length: 0, link: null };
  const jobs: string[] = [];
  const reads: string[] = [];
  /** The order the "transactions" ran in. */
  const committed: string[] = [];
  const signing: { open: () => void; fail: (error: Error) => void }[] = [];
  const pipeline = new ChainPipeline<string, string, string>({
    build: (tail, names) => {
      jobs.push(`${names.join('+')}<-${tail.link}`);
      const signed = new Promise<string[]>((resolve, reject) => {
        signing.push({ open: () => resolve(names.map((n) => `sig(${n})`)), fail: reject });
      });
      return { next: names.map((name, i) => ({ length: tail.length + i + 1, link: name })), signed };
    },
    groupsSigning: 2,
  });
  let commits: Promise<unknown> = Promise.resolve();
  function issue(name: string, opts: { failCommit?: boolean } = {}): Promise<Outcome & { signature: string }> {
    return pipeline.run(
      'k',
      name,
      () => {
        reads.push(name);
        return head;
      },
      (signed, tail) => {
        const commit = commits.then(() => {
          if (opts.failCommit) throw new Error(`commit of ${name} failed`);
          committed.push(name);
          const ahead = head.length === tail.length && head.link === tail.link;
          const chainedTo = head.link;
          head = { length: head.length + 1, link: name };
          // Built against a head that is not the stored one: built and signed again here.
          return { value: { name, chainedTo, signedAgain: !ahead, signature: ahead ? signed : `sig-tx(${name})` }, stored: ahead };
        });
        commits = commit.catch(() => undefined);
        return commit;
      },
    );
  }
  return { issue, jobs, reads, committed, signing, head: () => head };
}

/** A, then B, each let run until it waits: B is built against A while A's signature is still out. */
async function issueAThenB(c: ReturnType<typeof fakeBuiltChains>) {
  const a = c.issue('A');
  await settle();
  const b = c.issue('B');
  await settle();
  return { a, b };
}

describe('ChainPipeline, links known when built (VeriFactu, «NO VERI*FACTU»)', () => {
  it("builds the chain's next group while the previous group's signatures are still out, and commits in chain order", async () => {
    const c = fakeBuiltChains();
    const { a, b } = await issueAThenB(c);
    const rest = [c.issue('C'), c.issue('D')];
    await settle();
    // B was built against A before A's signature came back; C and D wait: two groups are signing.
    expect(c.jobs).toEqual(['A<-null', 'B<-A']);
    // B's signatures return first: its commit still waits for A's.
    c.signing[1]!.open();
    await settle();
    expect(c.committed).toEqual([]);
    // A slot freed: C and D are built against B, A's signature still out.
    expect(c.jobs).toEqual(['A<-null', 'B<-A', 'C+D<-B']);
    c.signing[0]!.open();
    c.signing[2]!.open();
    expect(await Promise.all([a, b, ...rest])).toEqual([
      { name: 'A', chainedTo: null, signedAgain: false, signature: 'sig(A)' },
      { name: 'B', chainedTo: 'A', signedAgain: false, signature: 'sig(B)' },
      { name: 'C', chainedTo: 'B', signedAgain: false, signature: 'sig(C)' },
      { name: 'D', chainedTo: 'C', signedAgain: false, signature: 'sig(D)' },
    ]);
    expect(c.committed).toEqual(['A', 'B', 'C', 'D']);
    expect(c.reads).toEqual(['A']);
  });

  it('a group built against a record whose commit failed is signed again in the transaction; the next group reads the stored head', async () => {
    const c = fakeBuiltChains();
    await (async () => {
      const h = c.issue('H');
      await settle();
      c.signing[0]!.open();
      await h;
    })();
    const a = c.issue('A', { failCommit: true });
    await settle();
    const b = c.issue('B');
    await settle();
    expect(c.jobs).toEqual(['H<-null', 'A<-H', 'B<-A']);
    c.signing[1]!.open();
    c.signing[2]!.open();
    await expect(a).rejects.toThrow('commit of A failed');
    expect(await b).toEqual({ name: 'B', chainedTo: 'H', signedAgain: true, signature: 'sig-tx(B)' });
    // After the wrong guess no link made in flight is trusted: the next group reads the store.
    const n = c.issue('N');
    await settle();
    expect(c.jobs).toEqual(['H<-null', 'A<-H', 'B<-A', 'N<-B']);
    c.signing[3]!.open();
    expect(await n).toEqual({ name: 'N', chainedTo: 'B', signedAgain: false, signature: 'sig(N)' });
    expect(c.reads).toEqual(['H', 'N']);
    expect(c.committed).toEqual(['H', 'B', 'N']);
  });

  it("a group whose signing failed rejects its requests only; the group built on it meanwhile is signed again in the transaction", async () => {
    const c = fakeBuiltChains();
    const { a, b } = await issueAThenB(c);
    expect(c.jobs).toEqual(['A<-null', 'B<-A']);
    c.signing[1]!.open();
    c.signing[0]!.fail(new Error('worker gone'));
    await expect(a).rejects.toThrow('worker gone');
    // B's commit waited for A's group to be done: A never stored, B chains to the stored head (none).
    expect(await b).toEqual({ name: 'B', chainedTo: null, signedAgain: true, signature: 'sig-tx(B)' });
    const n = c.issue('N');
    await settle();
    expect(c.jobs.at(-1)).toBe('N<-B');
    c.signing.at(-1)!.open();
    expect(await n).toMatchObject({ name: 'N', chainedTo: 'B', signedAgain: false });
    expect(c.committed).toEqual(['B', 'N']);
    expect(c.head()).toEqual({ length: 2, link: 'N' });
  });
});
