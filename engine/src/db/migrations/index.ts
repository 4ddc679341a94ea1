import type { Migration } from 'kysely';
import * as foundation from './20261122T1100Z-foundation';
import * as invoicesRecords from './20261122T1200Z-invoices-records';
import * as submission from './20261122T1300Z-submission';
import * as webhooks from './20261122T1500Z-webhooks';
import * as clients from './20261122T1600Z-clients';
import * as devices from './20261125T1400Z-devices';
import * as readCacheGeneration from './20261125T1616Z-read-cache-generation';
import * as submissionJobsLotePartial from './20261125T2000Z-submission-jobs-lote-partial';
import * as deviceRoutingGeneration from './20261125T2300Z-device-routing-generation';
import * as submissionRequests from './20261126T0200Z-submission-requests';
import * as modoSif from './20261128T2300Z-modo-sif';
import * as submissionQueueBlocked from './20261128T2300Z-submission-queue-blocked';
import * as tillCredentials from './20261128T2200Z-till-credentials';
import * as modoSifGeneration from './20261129T0900Z-modo-sif-generation';

/** Static index: bundling and packaging keep every migration; names sort by ISO date. */
export const migrations: Record<string, Migration> = {
  '20261122T1100Z-foundation': foundation,
  '20261122T1200Z-invoices-records': invoicesRecords,
  '20261122T1300Z-submission': submission,
  '20261122T1500Z-webhooks': webhooks,
  '20261122T1600Z-clients': clients,
  '20261125T1400Z-devices': devices,
  '20261125T1616Z-read-cache-generation': readCacheGeneration,
  '20261125T2000Z-submission-jobs-lote-partial': submissionJobsLotePartial,
  '20261125T2300Z-device-routing-generation': deviceRoutingGeneration,
  '20261126T0200Z-submission-requests': submissionRequests,
  '20261128T2200Z-till-credentials': tillCredentials,
  '20261128T2300Z-modo-sif': modoSif,
  '20261128T2300Z-submission-queue-blocked': submissionQueueBlocked,
  '20261129T0900Z-modo-sif-generation': modoSifGeneration,
};
