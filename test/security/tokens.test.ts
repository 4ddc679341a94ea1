import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine } from '../../engine/src/bin/start';
import { PANEL_TOKEN_FILE, tokenBitsEstimate, WeakTokenError } from '../../engine/src/http/panel-auth';
import { createEngine, type Engine } from '../../engine/src/index';
import type { Logger } from '../../engine/src/platform/logger';
import { migratedDataDir, testEngineConfig } from '../support/engine';

function envFor(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { POS_DATA_DIR: dataDir, POS_BILLING_PORT: '0', POS_MANAGE_PORT: '0', POS_PANEL_PORT: '0', POS_EMULATORS: 'off', ...extra };
}

describe('Panel tokens are strong by construction', () => {
  it('a configured POS_PANEL_TOKEN under 128 bits is refused at start, naming the variable, and nothing is started', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'weak-token-'));
    try {
      for (const weak of ['1234', 'panel-test-token', 'a'.repeat(64), '0123456789abcdef0123456789abcde']) {
        await expect(startEngine({ env: envFor(dataDir, { POS_PANEL_TOKEN: weak }) }), weak).rejects.toThrow(WeakTokenError);
      }
      await expect(startEngine({ env: envFor(dataDir, { POS_PANEL_TOKEN: '1234' }) })).rejects.toThrow(/POS_PANEL_TOKEN is too weak/);
      // No database was opened: the refusal comes before anything starts.
      expect(() => statSync(path.join(dataDir, 'engine.sqlite'))).toThrow();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the estimate: random 32-character tokens pass, short or repetitive ones do not', () => {
    expect(tokenBitsEstimate('1234')).toBeLessThan(128);
    expect(tokenBitsEstimate('x'.repeat(100))).toBe(0);
    expect(tokenBitsEstimate('Zk3_pQ9-mW2xY7rT4vB8nC1dF6gH0jL5')).toBeGreaterThanOrEqual(128);
  });

  it('unset, the engine makes a 256-bit token once, keeps it 0600 in the data dir and uses it again after a restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'gen-token-'));
    try {
      const first = await startEngine({ env: envFor(dataDir) });
      const token = first.engine.panelToken;
      await first.stop();
      expect(token.length).toBeGreaterThanOrEqual(43);
      const file = path.join(dataDir, PANEL_TOKEN_FILE);
      expect(readFileSync(file, 'utf8').trim()).toBe(token);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const again = await startEngine({ env: envFor(dataDir) });
      expect(again.engine.panelToken).toBe(token);
      await again.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('Guessing panel tokens is throttled per address and logged, without the guesses', () => {
  let engine: Engine;
  let dataDir: string;
  const lines: string[] = [];
  const logger: Logger = {
    info: () => {},
    warn: (m, d) => void lines.push(`${m} ${JSON.stringify(d ?? {})}`),
    error: (m, d) => void lines.push(`${m} ${JSON.stringify(d ?? {})}`),
  };
  beforeAll(async () => {
    dataDir = migratedDataDir('guess-');
    engine = await createEngine(testEngineConfig(dataDir, { logger }));
  });
  afterAll(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const attempt = (token: string, remoteAddress = '127.0.0.9') =>
    engine.apps.panel.inject({ method: 'GET', url: '/panel/v1/sync', remoteAddress, headers: { authorization: `Bearer ${token}` } });

  it('ten wrong tokens are 401 and logged; then the address gets 429 with retry-after, even with the right token; another address still gets in', async () => {
    for (let i = 0; i < 10; i++) expect((await attempt(`guess-${i}-secretish`)).statusCode).toBe(401);
    const throttled = await attempt('guess-10-secretish');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.json()).toMatchObject({ code: 'TOO_MANY_ATTEMPTS' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect((await attempt('panel-test-token')).statusCode).toBe(429);
    expect((await attempt('panel-test-token', '127.0.0.10')).statusCode).toBe(200);

    const refusals = lines.filter((l) => l.startsWith('panel token refused'));
    expect(refusals).toHaveLength(10);
    expect(refusals[9]).toContain('"peer":"127.0.0.9"');
    expect(refusals[9]).toContain('"failures":10');
    expect(lines.join('\n')).not.toContain('secretish');
  });
});
