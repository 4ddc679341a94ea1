import type { Account, AccountStore } from '../account/store';
import type { Database } from '../db/database';
import { ReadCache } from '../db/read-cache';
import type { TillCredentialsTable } from '../db/schema/till-credentials';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { hashApiKey } from '../platform/secrets';
import { TillCredentialStore } from './till-credentials-store';

/** What a till's token or key proves: which till of which account. */
export interface TillIdentityProof {
  idMaquina: string;
  idCuenta: string;
  nifEmisor: string;
}

export interface IssuedTillCredential extends TillIdentityProof {
  idCredencial: string;
  etiqueta: string;
  /** The till's panel token (shown once). */
  token: string;
  /** The till's own API keys for local POS software (shown once). */
  claves: { test: string; live: string };
}

export type TillCredentialView = Omit<TillCredentialsTable, 'tokenHash' | 'accountId'> & { idCuenta: string };

const TOKEN_PREFIX = 'tt_';

/**
 * A credential per till of a shop-server engine (issue 30): a panel token with the till's rights
 * (not the administrator's) and a TEST and a LIVE key, all bound to the till's `idMaquina` and kept
 * only as SHA-256 (each is 32 random bytes: no dictionary to attack). A new credential for the same
 * till replaces the old one; revoking it (or deactivating the device) revokes token and keys at once.
 */
export class TillCredentials {
  private readonly byTokenCache: ReadCache<TillIdentityProof | undefined>;
  private readonly byKeyCache: ReadCache<string | undefined>;
  private readonly boundCache: ReadCache<boolean>;
  private readonly store: TillCredentialStore;

  constructor(
    private readonly db: Database,
    private readonly accounts: AccountStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.byTokenCache = new ReadCache(db);
    this.byKeyCache = new ReadCache(db);
    this.boundCache = new ReadCache(db);
    this.store = new TillCredentialStore(db);
  }

  issue(account: Account, input: { nifEmisor: string; idMaquina: string; etiqueta: string }): IssuedTillCredential {
    return this.db.transaction(() => {
      this.revokeMachine(account.id, input.idMaquina);
      const test = this.accounts.createKey(account.id, 'test');
      const live = this.accounts.createKey(account.id, 'live');
      const token = `${TOKEN_PREFIX}${this.ids.secret(32)}`;
      const id = this.ids.next('caja');
      this.store.insert({
        id,
        accountId: account.id,
        nifEmisor: input.nifEmisor,
        idMaquina: input.idMaquina,
        etiqueta: input.etiqueta,
        tokenHash: hashApiKey(token),
        keyTestId: test.id,
        keyLiveId: live.id,
        creadoEn: this.clock.now().toISOString(),
        revocadoEn: null,
      });
      return { idCredencial: id, idCuenta: account.id, nifEmisor: input.nifEmisor, idMaquina: input.idMaquina, etiqueta: input.etiqueta, token, claves: { test: test.rawKey, live: live.rawKey } };
    });
  }

  /** The till a panel token belongs to (undefined: unknown or revoked). */
  byToken(token: string): TillIdentityProof | undefined {
    if (!token.startsWith(TOKEN_PREFIX)) return undefined;
    const tokenHash = hashApiKey(token);
    return this.byTokenCache.get(tokenHash, () => {
      const row = this.store.activeByTokenHash(tokenHash);
      return row ? { idMaquina: row.idMaquina, idCuenta: row.accountId, nifEmisor: row.nifEmisor } : undefined;
    });
  }

  /** The till an API key is bound to (undefined: an account key, bound to no till). */
  machineOfKey(keyId: string): string | undefined {
    return this.byKeyCache.get(keyId, () => this.store.activeMachineOfKey(keyId));
  }

  /** Whether a till of this account holds an active credential: then only it may issue as it. */
  hasCredential(accountId: string, idMaquina: string): boolean {
    return this.boundCache.get(`${accountId}|${idMaquina}`, () => this.store.activeOfMachine(accountId, idMaquina).length > 0);
  }

  /** Revokes the till's credential and its keys; false when it had none active. */
  revokeMachine(accountId: string, idMaquina: string): boolean {
    return this.db.transaction(() => {
      const rows = this.store.activeOfMachine(accountId, idMaquina);
      const now = this.clock.now().toISOString();
      for (const row of rows) {
        this.store.revoke(row.id, now);
        this.accounts.revokeKey(row.keyTestId);
        this.accounts.revokeKey(row.keyLiveId);
      }
      return rows.length > 0;
    });
  }

  list(accountId?: string): TillCredentialView[] {
    return this.store.list(accountId).map(({ tokenHash: _hash, accountId: idCuenta, ...rest }) => ({ ...rest, idCuenta }));
  }
}
