// On PostgreSQL no file tells a node that another committed: the read caches read the counter again
// for every request (one round trip for a request's key, till, issuer and routing looks), after
// every write through the node's own connection, at every look inside a transaction, and at the
// event loop's next turn — never trusting, for a request, a generation read before it arrived.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresDatabase } from '../../../engine/src/db/postgres';
import { ReadCache } from '../../../engine/src/db/read-cache';
import { freshPostgresUrl } from '../../support/postgres';

let node: PostgresDatabase;
let otherNode: PostgresDatabase;
beforeEach(async () => {
  const url = freshPostgresUrl();
  node = new PostgresDatabase(url);
  otherNode = new PostgresDatabase(url);
  await node.migrate();
});
afterEach(async () => {
  await node.close();
  await otherNode.close();
});

const BUMP = 'UPDATE read_cache_generation SET generation = generation + 1 WHERE id = 1';
const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

describe('CacheGeneration on PostgreSQL: one look per request, none trusted across requests', () => {
  it("another node's commit is seen by the next request, and at the event loop's next turn", async () => {
    const keys = new ReadCache<string>(node);
    const issuers = new ReadCache<string>(node);
    let loads = 0;
    const load = () => `v${++loads}`;
    node.requestArrived();
    expect(keys.get('k', load)).toBe('v1');
    expect(issuers.get('i', load)).toBe('v2');
    otherNode.statement(BUMP).run();
    // The same request's looks share one read of the counter…
    expect(keys.get('k', load)).toBe('v1');
    // …the next request reads it again, and every cache sees the change.
    node.requestArrived();
    expect(issuers.get('i', load)).toBe('v3');
    expect(keys.get('k', load)).toBe('v4');
    expect(keys.get('k', load)).toBe('v4');
    // Work outside requests: from the event loop's next turn on.
    otherNode.statement(BUMP).run();
    await nextTurn();
    expect(keys.get('k', load)).toBe('v5');
  });

  it("this node's own write is seen at once, within the same request", () => {
    node.requestArrived();
    const cache = new ReadCache<string>(node);
    let loads = 0;
    expect(cache.get('k', () => `v${++loads}`)).toBe('v1');
    node.statement(BUMP).run();
    expect(cache.get('k', () => `v${++loads}`)).toBe('v2');
    node.transaction(() => node.statement(BUMP).run());
    expect(cache.get('k', () => `v${++loads}`)).toBe('v3');
  });

  it('inside a transaction every look reads through', () => {
    const cache = new ReadCache<string>(node);
    let loads = 0;
    expect(cache.get('k', () => `v${++loads}`)).toBe('v1');
    node.transaction(() => {
      expect(cache.get('k', () => `v${++loads}`)).toBe('v2');
      expect(cache.get('k', () => `v${++loads}`)).toBe('v3');
    });
  });
});
