import type { AccountsTable } from './accounts';
import type { ApiKeysTable, QuotaUsageTable } from './api-keys';
import type { DeclarationsTable } from './declarations';
import type { IssuersTable } from './issuers';
import type { EventsTable, SubmissionBatchesTable, SubmissionControlTable, SubmissionQueuesTable } from './submission';
import type {
  ChainsTable,
  InvoiceRefsTable,
  InvoicesTable,
  RegistrosTable,
  SettingsTable,
  SubmissionJobsTable,
} from './invoices';

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  quota_usage: QuotaUsageTable;
  issuers: IssuersTable;
  declarations: DeclarationsTable;
  settings: SettingsTable;
  invoices: InvoicesTable;
  registros: RegistrosTable;
  chains: ChainsTable;
  invoice_refs: InvoiceRefsTable;
  submission_jobs: SubmissionJobsTable;
  submission_queues: SubmissionQueuesTable;
  submission_batches: SubmissionBatchesTable;
  submission_control: SubmissionControlTable;
  events: EventsTable;
}
