import type { Database } from '../db/database';
import type { OutboxStore } from './outbox-store';
import { SqliteOutboxStore } from './outbox-store.sqlite';
import type { RecordStates } from './record-states';
import { sqliteRecordStatesOf } from './record-states.sqlite';

/**
 * The outbox store of `db`. Its statements are written in SQLite's spelling and PostgreSQL runs
 * them in its own (db/postgres.ts): one text for both databases, so the two cannot drift.
 */
export function outboxStoreOf(db: Database): OutboxStore {
  return new SqliteOutboxStore(db);
}

/** The record states of `db`, prepared once per database (connection). */
export function recordStatesOf(db: Database): RecordStates {
  return sqliteRecordStatesOf(db);
}
