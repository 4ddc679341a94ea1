import { closeSync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/**
 * Writes `file` whole or not at all (write-file-atomic: a temporary file, fsynced, renamed over
 * it), then fsyncs its folder so that the rename itself survives a power cut: a reader finds the
 * old content or the new one, never a truncated file.
 */
export function writeFileDurably(file: string, text: string, mode: number): void {
  writeFileAtomic.sync(file, text, { mode, fsync: true });
  const folder = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}
