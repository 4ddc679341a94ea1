import type { Database } from './database';

/** A setting's value, when it was ever written. */
export function settingValue(db: Database, key: string): string | undefined {
  return db.first(db.kysely.selectFrom('settings').select('value').where('key', '=', key))?.value;
}

/** A per-install value created once and kept (NumeroInstalacion, the cursor-signing secret). */
export function installValue(db: Database, key: string, create: () => string): string {
  const existing = db.first(db.kysely.selectFrom('settings').select('value').where('key', '=', key));
  if (existing) return existing.value;
  const value = create();
  db.run(db.kysely.insertInto('settings').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()));
  return db.first(db.kysely.selectFrom('settings').select('value').where('key', '=', key))?.value ?? value;
}
