import type { AccountsTable } from './accounts';
import type { ApiKeysTable, QuotaUsageTable } from './api-keys';
import type { DeclarationsTable } from './declarations';
import type { IssuersTable } from './issuers';

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  quota_usage: QuotaUsageTable;
  issuers: IssuersTable;
  declarations: DeclarationsTable;
}
