import type { AuthorityAdapter } from '../core/authority';
import type { Database } from '../db/database';
import { epigrafeIaeOf } from '../clients/store';
import type { WriteTurns } from '../db/write-priority';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import type { SubmissionConfig } from '../submission/config';
import { SubmissionWorker } from '../submission/worker';
import type { TbaiEndpoints } from '../regimes/ticketbai/config';
import { LroeAdapter, TbaiRestAdapter } from '../regimes/ticketbai/authority/filing';
import { AeatAdapter } from '../regimes/verifactu/authority/aeat-adapter';
import type { WebhookDeliveryConfig } from '../webhooks/config';
import { WebhookDeliveryWorker } from '../webhooks/delivery-worker';
import type { WebhookAddressPolicy } from '../webhooks/address-policy';

/** What the filing workers need of the engine's configuration; plain data, so it crosses to the filing thread. */
export interface FilingSettings {
  submission: SubmissionConfig;
  submitAutomatically: boolean;
  webhooks: WebhookDeliveryConfig;
  tbaiEndpoints: TbaiEndpoints;
}

export interface FilingWorkers {
  submissions: SubmissionWorker;
  webhookDeliveries: WebhookDeliveryWorker;
}

/** Every authority the engine files with: AEAT (VeriFactu), TicketBAI Araba and Gipuzkoa (REST), Bizkaia (LROE). */
export function authorityAdapters(db: Database, settings: Pick<FilingSettings, 'submission' | 'tbaiEndpoints'>): AuthorityAdapter[] {
  return [
    new AeatAdapter(settings.submission.aeat),
    new TbaiRestAdapter('araba', settings.tbaiEndpoints),
    new TbaiRestAdapter('gipuzkoa', settings.tbaiEndpoints),
    new LroeAdapter(settings.tbaiEndpoints, (nif) => epigrafeIaeOf(db, nif)),
  ];
}

/**
 * The submission worker with every authority (authorityAdapters) and the webhook worker, on `db`;
 * `turns`: when their write transactions may take the lock (default: after what the event loop
 * already has due).
 */
export function buildFilingWorkers(
  db: Database,
  clock: Clock,
  ids: IdGenerator,
  logger: Logger,
  settings: FilingSettings,
  turns?: WriteTurns,
  addresses?: WebhookAddressPolicy,
): FilingWorkers {
  const submissions = new SubmissionWorker(db, clock, ids, logger, settings.submission, authorityAdapters(db, settings), turns);
  return { submissions, webhookDeliveries: new WebhookDeliveryWorker(db, clock, logger, settings.webhooks, turns, addresses) };
}

/**
 * Filing as the rest of the engine sees it, wherever its workers run: on the main thread
 * (InProcessFiling) or on the filing thread (FilingThread).
 */
export interface Filing {
  /**
   * Starts the workers the configuration starts with the engine; resolves once they run.
   * `guardedPorts`: the engine's listening ports and its emulators' (no webhook is delivered there).
   */
  start(guardedPorts?: readonly number[]): Promise<void>;
  /** Resolves once nothing is in flight any more: no submission or delivery is left half-recorded. */
  stop(): Promise<void>;
  /** Records were durably committed into `queueKey` (InvoiceStore's onEnqueued hook). */
  enqueued(queueKey: string): void;
  /** Look for due submissions now (the panel's retry and resume). */
  wakeSubmissions(): void;
  /** Webhooks were created, changed or deleted. */
  webhooksChanged(): void;
}

/** The workers on the engine's main thread and connection: tests with injected clocks drive them by hand. */
export class InProcessFiling implements Filing {
  constructor(
    private readonly workers: FilingWorkers,
    private readonly settings: Pick<FilingSettings, 'submitAutomatically' | 'webhooks'>,
  ) {}

  async start(guardedPorts: readonly number[] = []): Promise<void> {
    this.workers.webhookDeliveries.addresses.guardPorts(guardedPorts);
    if (this.settings.submitAutomatically) this.workers.submissions.start();
    if (this.settings.webhooks.deliverAutomatically) this.workers.webhookDeliveries.start();
  }

  async stop(): Promise<void> {
    await this.workers.submissions.stop();
    await this.workers.webhookDeliveries.stop();
  }

  enqueued(queueKey: string): void {
    this.workers.submissions.enqueued(queueKey);
  }

  wakeSubmissions(): void {
    this.workers.submissions.wake();
  }

  webhooksChanged(): void {
    this.workers.webhookDeliveries.wake();
  }
}
