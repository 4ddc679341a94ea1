// On PostgreSQL no file tells a node that another committed: the read caches read the counter again
// in every synchronous stretch (one round trip for a request's key, issuer and routing looks made
// together), after every write through the node's own connection, and at every look inside a
// transaction — never trusting a generation read before anything this node could have received.
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
const nextStretch = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('CacheGeneration on PostgreSQL: one look per stretch, none trusted across one', () => {
  it("another node's commit is seen from the next stretch on", async () => {
    const keys = new ReadCache<string>(node);
    const issuers = new ReadCache<string>(node);
    let loads = 0;
    const load = () => `v${++loads}`;
    expect(keys.get('k', load)).toBe('v1');
    expect(issuers.get('i', load)).toBe('v2');
    await nextStretch();
    expect(keys.get('k', load)).toBe('v1');
    otherNode.statement(BUMP).run();
    await Promise.resolve();
    // A microtask later is another stretch already: the other node's commit is read.
    expect(issuers.get('i', load)).toBe('v3');
    expect(keys.get('k', load)).toBe('v4');
    await nextStretch();
    expect(keys.get('k', load)).toBe('v4');
  });

  it("this node's own write is seen at once, in the same stretch", () => {
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
