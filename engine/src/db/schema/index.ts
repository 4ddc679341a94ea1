import type { AccountsTable } from './accounts';
import type { ClientsTables } from './clients';
import type { DevicesTables } from './devices';
import type { ApiKeysTable, QuotaUsageTable } from './api-keys';
import type { DeclarationsTable } from './declarations';
import type { IssuersTable } from './issuers';
import type { TillCredentialsTable } from './till-credentials';
import type { NoVerifactuTables } from './no-verifactu';
import type { WebhookDeliveriesTable, WebhookDeliveryAttemptsTable, WebhookIssuersTable, WebhooksTable } from './webhooks';
import type { EventsTable, SubmissionBatchesTable, SubmissionControlTable, SubmissionQueuesTable, SubmissionRequestsTable } from './submission';
import type {
  ChainsTable,
  InvoiceDocumentosTable,
  InvoiceRefsTable,
  RegistroDocumentosTable,
  InvoicesTable,
  RegistrosTable,
  SettingsTable,
  SubmissionJobsTable,
} from './invoices';

export interface Tables extends ClientsTables, DevicesTables, NoVerifactuTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  quota_usage: QuotaUsageTable;
  issuers: IssuersTable;
  declarations: DeclarationsTable;
  settings: SettingsTable;
  invoices: InvoicesTable;
  registros: RegistrosTable;
  registro_documentos: RegistroDocumentosTable;
  invoice_documentos: InvoiceDocumentosTable;
  chains: ChainsTable;
  invoice_refs: InvoiceRefsTable;
  submission_jobs: SubmissionJobsTable;
  submission_queues: SubmissionQueuesTable;
  submission_batches: SubmissionBatchesTable;
  submission_requests: SubmissionRequestsTable;
  submission_control: SubmissionControlTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_issuers: WebhookIssuersTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  till_credentials: TillCredentialsTable;
}
