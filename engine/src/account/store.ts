import type { Entorno } from '../../../src-shared/api/common';
import type { EstadoCuenta } from '../../../src-shared/api/cuenta';
import type { Database } from '../db/database';
import { ReadCache } from '../db/read-cache';
import type { AccountsTable } from '../db/schema/accounts';
import type { ApiKeysTable } from '../db/schema/api-keys';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import { madridPeriod } from '../platform/madrid-calendar';
import { hashApiKey, newApiKey } from '../platform/secrets';

export type Account = AccountsTable;
export interface ActiveKey {
  key: ApiKeysTable;
  account: Account;
}

/** Accounts and API keys: the SQL behind authentication and the admin command line. */
export class AccountStore {
  // Every keyed request runs these two: built once.
  private readonly keyByHash;
  private readonly accountById;
  private readonly activeKeys: ReadCache<ActiveKey | undefined>;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.keyByHash = db.prepare<ApiKeysTable, 'keyHash'>((slot) =>
      db.kysely.selectFrom('api_keys').selectAll().where('keyHash', '=', slot('keyHash')),
    );
    this.accountById = db.prepare<Account, 'id'>((slot) => db.kysely.selectFrom('accounts').selectAll().where('id', '=', slot('id')));
    this.activeKeys = new ReadCache(db);
  }

  /**
   * The key and its account, or undefined when the key is unknown or revoked. Cached by key hash
   * until any account or key changes (ReadCache); callers must not modify what it returns.
   */
  findActiveKey(rawKey: string): ActiveKey | undefined {
    const keyHash = hashApiKey(rawKey);
    return this.activeKeys.get(keyHash, () => {
      const key = this.keyByHash.first({ keyHash });
      if (!key || key.revocadoEn !== null) return undefined;
      const account = this.accountById.first({ id: key.accountId });
      return account ? { key, account } : undefined;
    });
  }

  getAccount(id: string): Account | undefined {
    return this.db.first(this.db.kysely.selectFrom('accounts').selectAll().where('id', '=', id));
  }

  findAccountByNif(nif: string): Account | undefined {
    return this.db.first(this.db.kysely.selectFrom('accounts').selectAll().where('nif', '=', nif));
  }

  listAccounts(): Account[] {
    return this.db.all(this.db.kysely.selectFrom('accounts').selectAll().orderBy('creadoEn'));
  }

  createAccount(input: {
    nif: string;
    nombre: string;
    plan: string;
    estadoCuenta?: EstadoCuenta;
    limiteClientesTest?: number | null;
    limiteClientesLive?: number | null;
  }): Account {
    const row: Account = {
      id: this.ids.next('acc'),
      nif: input.nif,
      nombre: input.nombre,
      plan: input.plan,
      estadoCuenta: input.estadoCuenta ?? 'activa',
      facturacionActiva: 1,
      limiteClientesTest: input.limiteClientesTest ?? null,
      limiteClientesLive: input.limiteClientesLive ?? null,
      creadoEn: this.clock.now().toISOString(),
    };
    this.db.run(this.db.kysely.insertInto('accounts').values(row));
    return row;
  }

  updateAccount(
    id: string,
    changes: Partial<Pick<Account, 'plan' | 'estadoCuenta' | 'facturacionActiva' | 'limiteClientesTest' | 'limiteClientesLive' | 'nombre'>>,
  ): void {
    this.db.run(this.db.kysely.updateTable('accounts').set(changes).where('id', '=', id));
  }

  /** Issues a key; the raw value is returned once and only its hash is kept. */
  createKey(accountId: string, entorno: Entorno, rotatedFromId: string | null = null): { id: string; rawKey: string } {
    const rawKey = newApiKey(this.ids, entorno);
    const id = this.ids.next('key');
    this.db.run(
      this.db.kysely.insertInto('api_keys').values({
        id,
        accountId,
        entorno,
        keyHash: hashApiKey(rawKey),
        prefix: rawKey.slice(0, 12),
        creadoEn: this.clock.now().toISOString(),
        revocadoEn: null,
        rotatedFromId,
      }),
    );
    return { id, rawKey };
  }

  listKeys(accountId: string): ApiKeysTable[] {
    return this.db.all(
      this.db.kysely.selectFrom('api_keys').selectAll().where('accountId', '=', accountId).orderBy('creadoEn'),
    );
  }

  getKey(id: string): ApiKeysTable | undefined {
    return this.db.first(this.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', id));
  }

  revokeKey(id: string): boolean {
    return (
      this.db.run(
        this.db.kysely
          .updateTable('api_keys')
          .set({ revocadoEn: this.clock.now().toISOString() })
          .where('id', '=', id)
          .where('revocadoEn', 'is', null),
      ) > 0
    );
  }

  /**
   * Replaces a key: the new one inherits this month's consumption as a snapshot taken now, and
   * the old one is revoked, in one transaction.
   */
  rotateKey(id: string): { id: string; rawKey: string } {
    return this.db.transaction(() => {
      const old = this.getKey(id);
      if (!old || old.revocadoEn !== null) throw new Error(`key ${id} is not active`);
      const fresh = this.createKey(old.accountId, old.entorno, old.id);
      const periodo = madridPeriod(this.clock.now());
      const usage = this.db.first(
        this.db.kysely
          .selectFrom('quota_usage')
          .select('usadas')
          .where('keyId', '=', old.id)
          .where('periodo', '=', periodo),
      );
      if (usage) {
        this.db.run(
          this.db.kysely
            .insertInto('quota_usage')
            .values({ keyId: fresh.id, periodo, usadas: usage.usadas, snapshotUsadas: null, snapshotEn: null }),
        );
      }
      this.revokeKey(old.id);
      return fresh;
    });
  }
}
