import type { Database } from './database';

/**
 * `create` run once per Database, its result shared by every later caller with that Database (for
 * state that belongs to a connection, such as what its caches last saw); dropped with the Database.
 */
export function onePerDatabase<T>(create: (db: Database) => T): (db: Database) => T {
  const byDatabase = new WeakMap<Database, T>();
  return (db) => {
    let value = byDatabase.get(db);
    if (value === undefined) {
      value = create(db);
      byDatabase.set(db, value);
    }
    return value;
  };
}
