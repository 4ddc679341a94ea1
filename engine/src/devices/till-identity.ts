import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { idMaquina } from '../../../src-shared/primitives';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';

/** The same file and shape as the desktop shell's (src-main/device-identity.ts), in the data dir. */
export const TILL_IDENTITY_FILE = 'till-identity.json';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

const identitySchema = z.object({ version: z.literal(1), idMaquina, creadoEn: z.string() });
export type TillIdentity = z.infer<typeof identitySchema>;

/**
 * The headless till's identity (`npm start`): created once in the data dir and kept, so the till
 * is the same device across restarts. A damaged file is replaced by a new identity.
 */
export function loadHeadlessTillIdentity(dataDir: string, deps: { ids: IdGenerator; clock: Clock }): TillIdentity {
  const file = path.join(dataDir, TILL_IDENTITY_FILE);
  try {
    return identitySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    // Missing or unreadable: a new till.
  }
  const random = deps.ids.secret(12);
  let id = 'TPV-';
  for (let i = 0; i < 12; i++) id += CROCKFORD[random.charCodeAt(i % random.length) % 32];
  const identity: TillIdentity = { version: 1, idMaquina: id, creadoEn: deps.clock.now().toISOString() };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  return identity;
}
