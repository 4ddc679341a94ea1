export interface WebhookDeliveryConfig {
  /** A delivery must be answered (status line) within this time; later counts as a failure. */
  timeoutMs: number;
  /** Waits before each retry; its length is the number of retries (spec: up to 3). */
  retryDelaysMs: number[];
  /** How often an idle worker looks for new events and due retries (wake() cuts it short). */
  pollMs: number;
  /** Webhooks served at the same time; each webhook gets one attempt at a time, in order. */
  parallelWebhooks: number;
  /** Due deliveries taken per pass. */
  batchSize: number;
  /** Start delivering with the engine. */
  deliverAutomatically: boolean;
}

export const DEFAULT_WEBHOOK_DELIVERY: WebhookDeliveryConfig = {
  timeoutMs: 10_000,
  retryDelaysMs: [30_000, 120_000, 480_000],
  pollMs: 250,
  parallelWebhooks: 8,
  batchSize: 200,
  deliverAutomatically: true,
};
