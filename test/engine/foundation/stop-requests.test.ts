import { describe, expect, it } from 'vitest';
import { StopRequests } from '../../../engine/src/bin/stop-requests';

describe('StopRequests: a stop asked for before the engine has started is kept, not lost', () => {
  it('a request made while starting runs the handler once it is given, with the first reason', () => {
    const requests = new StopRequests();
    requests.request('SIGINT');
    requests.request('SIGTERM');
    expect(requests.reason).toBe('SIGINT');
    const seen: string[] = [];
    requests.handleWith((reason) => seen.push(reason));
    expect(seen).toEqual(['SIGINT']);
  });

  it('after the start, the first request runs the handler at once and later ones do nothing', () => {
    const requests = new StopRequests();
    const seen: string[] = [];
    requests.handleWith((reason) => seen.push(reason));
    expect(seen).toEqual([]);
    expect(requests.reason).toBeUndefined();
    requests.request('host');
    requests.request('SIGTERM');
    expect(seen).toEqual(['host']);
  });
});
