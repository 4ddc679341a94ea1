// The Host check keeps its verdicts per (port, Host) while the API's allowed names are the same
// (http/server.ts HostGuard, keyed-api.ts hostNamesOf): same answers as hostAllowed, and a change
// of names (the API's URL once it listens) is seen at once.
import { describe, expect, it } from 'vitest';
import { hostNamesOf } from '../../../engine/src/http/keyed-api';
import { HostGuard, hostAllowed } from '../../../engine/src/http/server';

const HEADERS = [undefined, '', '127.0.0.1:8780', '127.0.0.1:8781', 'LOCALHOST:8780', 'localhost', '[::1]:8780', 'caja1.local:8780', 'caja1.local:8781', 'caja1.local', 'evil.example:8780', '127.0.0.1:87x0', '127.0.0.1:'];
const PORTS = [8780, 8781, undefined];

describe('HostGuard', () => {
  it('answers what hostAllowed answers, asked twice (the second time from its memory)', () => {
    let url = 'http://0.0.0.0:8780';
    const config = { host: '0.0.0.0', allowedHosts: ['caja1.local'] };
    const names = hostNamesOf(config, () => url);
    const guard = new HostGuard(names);
    for (let round = 0; round < 2; round++) {
      for (const header of HEADERS) {
        for (const port of PORTS) expect(guard.allows(header, port), `${header} on ${port}`).toBe(header ? hostAllowed(header, names(), port) : false);
      }
    }
    expect(guard.allows('caja1.local:8780', 8780)).toBe(true);
    // The names change (here: another port): the remembered verdicts go with them.
    url = 'http://0.0.0.0:8781';
    expect(guard.allows('caja1.local:8780', 8780)).toBe(false);
    expect(guard.allows('caja1.local:8781', 8781)).toBe(true);
  });

  it('hostNamesOf hands out the same array until the URL changes', () => {
    let url = 'http://127.0.0.1:0';
    const names = hostNamesOf({ host: '127.0.0.1', allowedHosts: ['caja1.local'] }, () => url);
    const first = names();
    expect(names()).toBe(first);
    url = 'http://127.0.0.1:8780';
    expect(names()).not.toBe(first);
    expect(names()).toContain('caja1.local:8780');
  });

  it('a flood of made-up Host values does not grow its memory without bound, and verdicts stay right', () => {
    const guard = new HostGuard(() => ['127.0.0.1', 'localhost', '[::1]']);
    for (let i = 0; i < 5000; i++) expect(guard.allows(`h${i}.example:8780`, 8780)).toBe(false);
    expect(guard.allows('127.0.0.1:8780', 8780)).toBe(true);
    expect((guard as unknown as { verdicts: Map<string, boolean> }).verdicts.size).toBeLessThanOrEqual(256);
  });
});
