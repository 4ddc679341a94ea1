// A filing thread that dies is logged and started again (told to start, as the one it replaces);
// the engine's stop() then stops the new one.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FilingThread, type FilingThreadData } from '../../../engine/src/filing/filing-thread';

describe('FilingThread', () => {
  it('restarts a thread that died, logs it, and stops the new one cleanly', async () => {
    const journal = path.join(mkdtempSync(path.join(tmpdir(), 'filing-restart-')), 'journal');
    const lines: { level: string; message: string }[] = [];
    const at = (level: string) => (message: string) => void lines.push({ level, message });
    const thread = new FilingThread({ journal } as unknown as FilingThreadData, { info: at('info'), warn: at('warn'), error: at('error') }, new URL('./dying-thread-fixture.ts', import.meta.url));
    thread.prepare();
    await thread.start();
    const lives = () => readFileSync(journal, 'utf8').trim().split('\n');
    // The first life dies; the second is spawned and told to start.
    await vi.waitFor(() => expect(lives()).toEqual(['spawn', 'start', 'spawn', 'start']), { timeout: 20_000, interval: 50 });
    expect(lines).toContainEqual({ level: 'error', message: 'filing thread stopped unexpectedly; starting it again' });
    await thread.stop();
    expect(lives()).toEqual(['spawn', 'start', 'spawn', 'start', 'stop']);
  }, 30_000);
});
