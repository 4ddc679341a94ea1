// The till's stable identity, sent as `idMaquina` with every sale: a random id created on the
// installation's first start and kept in userData (till-identity.json). Reinstalling over the same
// profile keeps it; a new machine or profile is a new till. Written atomically (tmp + rename).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const IDENTITY_FILE = 'till-identity.json';
const ID_RE = /^TPV-[0-9A-HJKMNP-TV-Z]{12}$/;
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'; // Crockford base32

const identitySchema = z.object({
  version: z.literal(1),
  idMaquina: z.string().regex(ID_RE),
  creadoEn: z.string(),
});
export type DeviceIdentity = z.infer<typeof identitySchema>;

export interface IdentityDeps {
  random?: (n: number) => Uint8Array;
  now?: () => Date;
  warn?: (message: string) => void;
}

export function newIdMaquina(random: (n: number) => Uint8Array = randomBytes): string {
  const bytes = random(12);
  let id = 'TPV-';
  for (const b of bytes) id += ALPHABET[b % 32];
  return id;
}

export function loadDeviceIdentity(userDataDir: string, deps: IdentityDeps = {}): DeviceIdentity {
  const file = path.join(userDataDir, IDENTITY_FILE);
  let raw: string | undefined;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    raw = undefined;
  }
  if (raw !== undefined) {
    try {
      return identitySchema.parse(JSON.parse(raw));
    } catch {
      // Keep the damaged file for support staff; the till gets a new identity (logged).
      const aside = `${file}.damaged-${(deps.now?.() ?? new Date()).getTime()}`;
      renameSync(file, aside);
      deps.warn?.(`${IDENTITY_FILE} was damaged; kept as ${path.basename(aside)} and a new till identity was created`);
    }
  }
  const identity: DeviceIdentity = { version: 1, idMaquina: newIdMaquina(deps.random), creadoEn: (deps.now?.() ?? new Date()).toISOString() };
  mkdirSync(userDataDir, { recursive: true });
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(identity, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return identity;
}
