import type { Database } from '../db/database';
import type { TillCredentialsTable } from '../db/schema/till-credentials';

/**
 * The SQL of till_credentials: each till's panel token and key pair, by hash. Plain kysely: nothing
 * here is SQLite's own. Runs in the caller's transaction (TillCredentials owns the business step).
 */
export class TillCredentialStore {
  constructor(private readonly db: Database) {}

  insert(row: TillCredentialsTable): void {
    this.db.run(this.db.kysely.insertInto('till_credentials').values(row));
  }

  /** The active credential whose token has this hash. */
  activeByTokenHash(tokenHash: string): TillCredentialsTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('till_credentials').selectAll().where('tokenHash', '=', tokenHash).where('revocadoEn', 'is', null));
  }

  /** The till an active credential binds this key (TEST or LIVE) to. */
  activeMachineOfKey(keyId: string): string | undefined {
    return this.db.first(
      this.db.kysely
        .selectFrom('till_credentials')
        .select('idMaquina')
        .where((eb) => eb.or([eb('keyTestId', '=', keyId), eb('keyLiveId', '=', keyId)]))
        .where('revocadoEn', 'is', null),
    )?.idMaquina;
  }

  /** The till's active credentials (one, unless a crash left more). */
  activeOfMachine(accountId: string, idMaquina: string): TillCredentialsTable[] {
    return this.db.all(
      this.db.kysely
        .selectFrom('till_credentials')
        .selectAll()
        .where('accountId', '=', accountId)
        .where('idMaquina', '=', idMaquina)
        .where('revocadoEn', 'is', null),
    );
  }

  revoke(id: string, at: string): void {
    this.db.run(this.db.kysely.updateTable('till_credentials').set({ revocadoEn: at }).where('id', '=', id));
  }

  /** Every credential (of one account when given), oldest first. */
  list(accountId?: string): TillCredentialsTable[] {
    let q = this.db.kysely.selectFrom('till_credentials').selectAll().orderBy('creadoEn');
    if (accountId !== undefined) q = q.where('accountId', '=', accountId);
    return this.db.all(q);
  }
}
