import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EngineHost, type EngineChild, type ForkEngine } from '../../src-main/engine-host';

vi.mock('electron', () => ({ utilityProcess: { fork: vi.fn() } }));

const URLS = { billing: 'http://127.0.0.1:8780', manage: 'http://127.0.0.1:8781', panel: 'http://127.0.0.1:8782' };

class FakeEngine extends EventEmitter implements EngineChild {
  static count = 0;
  readonly pid = ++FakeEngine.count;
  readonly received: unknown[] = [];
  killed = false;
  /** When true the engine answers {type:'stop'} by exiting 0, like engine/src/bin/utility.ts. */
  obeysStop = true;
  postMessage(message: unknown): void {
    this.received.push(message);
    if (this.obeysStop && (message as { type?: string }).type === 'stop') queueMicrotask(() => this.emit('exit', 0));
  }
  kill(): boolean {
    this.killed = true;
    queueMicrotask(() => this.emit('exit', 137));
    return true;
  }
  ready(urls = URLS) {
    this.emit('message', { type: 'ready', urls });
  }
  crash(code = 1) {
    this.emit('exit', code);
  }
}

let children: FakeEngine[];
let fork: ReturnType<typeof vi.fn<ForkEngine>>;
let clock: number;
const log = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };

function host(extra: Partial<ConstructorParameters<typeof EngineHost>[0]> = {}) {
  return new EngineHost({
    modulePath: '/app/out/main/engine-utility.js',
    env: { POS_PANEL_TOKEN: 'tok' },
    fork,
    log,
    backoff: { baseMs: 1000, maxMs: 8000, resetAfterMs: 60_000 },
    stopTimeoutMs: 5000,
    now: () => clock,
    ...extra,
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  clock = 0;
  children = [];
  fork = vi.fn<ForkEngine>(() => {
    const child = new FakeEngine();
    children.push(child);
    return child;
  });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Engine host: start', () => {
  it('forks the engine entry in a utility process with the env it was given, and resolves with its URLs when it is ready', async () => {
    const h = host();
    const started = h.start();
    expect(fork).toHaveBeenCalledWith('/app/out/main/engine-utility.js', [], expect.objectContaining({ serviceName: 'till-engine', env: { POS_PANEL_TOKEN: 'tok' } }));
    expect(h.state).toBe('arrancando');
    children[0]!.ready();
    await expect(started).resolves.toEqual(URLS);
    expect(h.state).toBe('listo');
  });

  it('ignores messages that are not its protocol', async () => {
    const h = host();
    const started = h.start();
    children[0]!.emit('message', { type: 'ready' });
    children[0]!.emit('message', 'hello');
    expect(h.state).toBe('arrancando');
    children[0]!.ready();
    await started;
  });
});

describe('Engine host: restarts on crash with back-off', () => {
  it('restarts after 1 s, 2 s, 4 s, … capped at the maximum, reporting each state', async () => {
    const h = host();
    const states: string[] = [];
    h.onChange((s) => states.push(s));
    const started = h.start();
    children[0]!.ready();
    await started;
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = children.length;
      children[children.length - 1]!.crash();
      expect(h.state).toBe('reiniciando');
      let waited = 0;
      while (children.length === before) {
        await vi.advanceTimersByTimeAsync(250);
        waited += 250;
      }
      delays.push(waited);
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(h.restarts).toBe(5);
    children[children.length - 1]!.ready();
    expect(h.state).toBe('listo');
    expect(states).toContain('reiniciando');
    expect(log.error).toHaveBeenCalledWith('engine exited unexpectedly; restarting', expect.objectContaining({ code: 1 }));
  });

  it('a crash before the first ready still ends in a started engine', async () => {
    const h = host();
    const started = h.start();
    children[0]!.crash(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(children).toHaveLength(2);
    children[1]!.ready();
    await expect(started).resolves.toEqual(URLS);
  });

  it('after a long healthy run the back-off starts again from its base', async () => {
    const h = host();
    const started = h.start();
    children[0]!.ready();
    await started;
    children[0]!.crash();
    await vi.advanceTimersByTimeAsync(1000);
    children[1]!.crash();
    await vi.advanceTimersByTimeAsync(2000);
    expect(children).toHaveLength(3);
    clock += 120_000; // ran two minutes
    children[2]!.crash();
    await vi.advanceTimersByTimeAsync(1000);
    expect(children).toHaveLength(4);
  });
});

describe('Engine host: clean shutdown', () => {
  it('stop() asks the engine to stop and resolves when it exits; no restart follows', async () => {
    const h = host();
    const started = h.start();
    children[0]!.ready();
    await started;
    await h.stop();
    expect(children[0]!.received).toEqual([{ type: 'stop' }]);
    expect(children[0]!.killed).toBe(false);
    expect(h.state).toBe('detenido');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(children).toHaveLength(1);
  });

  it('an engine that does not stop within the grace period is killed', async () => {
    const h = host();
    const started = h.start();
    children[0]!.ready();
    await started;
    children[0]!.obeysStop = false;
    const stopped = h.stop();
    await vi.advanceTimersByTimeAsync(5000);
    await stopped;
    expect(children[0]!.killed).toBe(true);
    expect(log.warn).toHaveBeenCalledWith('engine did not stop in time; killing it', { graceMs: 5000 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(children).toHaveLength(1);
  });

  it('stop() during a back-off wait cancels the pending restart', async () => {
    const h = host();
    const started = h.start();
    children[0]!.ready();
    await started;
    children[0]!.crash();
    await h.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(children).toHaveLength(1);
    expect(h.state).toBe('detenido');
  });

  it('restart() stops the running engine and forks a new one', async () => {
    const h = host();
    const started = h.start();
    children[0]!.ready();
    await started;
    await h.restart();
    expect(children).toHaveLength(2);
    expect(children[0]!.received).toEqual([{ type: 'stop' }]);
  });
});
