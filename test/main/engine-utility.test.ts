import { fork } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

describe('The engine entry main forks (engine/src/bin/utility.ts), run under a plain Node fork', () => {
  it('reports ready with its URLs, keeps the host’s panel token, seeds the till’s keys, and stops cleanly on {type:"stop"}', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'till-utility-'));
    const child = fork(path.join(root, 'engine/src/bin/utility.ts'), [], {
      cwd: root,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, POS_DATA_DIR: dataDir, POS_BILLING_PORT: '0', POS_MANAGE_PORT: '0', POS_PANEL_PORT: '0', POS_PANEL_TOKEN: 'token-from-the-host', POS_UI_DIR: path.join(dataDir, 'no-ui') },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const ready = await new Promise<{ type: string; urls: { panel: string } }>((resolve, reject) => {
      child.on('message', (m) => resolve(m as { type: string; urls: { panel: string } }));
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    expect(ready.type).toBe('ready');
    expect(existsSync(path.join(dataDir, 'demo-keys.json'))).toBe(true);
    const relayed = await fetch(`${ready.urls.panel}/panel/v1/api/billing/v1/cuenta`, { headers: { authorization: 'Bearer token-from-the-host' } });
    expect(relayed.status).toBe(200);
    expect(((await relayed.json()) as { entorno: string }).entorno).toBe('test');
    child.send({ type: 'stop' });
    expect(await exited).toBe(0);
  });
});
