import { AccountStore } from './account/store';
import { UsageMeter } from './account/usage';
import { CensusService } from './census/service';
import { IaeCatalogue } from './clients/iae';
import { ClientService } from './clients/service';
import { IssuerStore } from './clients/store';
import { DeclarationService } from './compliance/service';
import type { ResolvedConfig } from './config';
import type { Database } from './db/database';
import { DeviceRouting } from './devices/routing';
import { DeviceService } from './devices/service';
import { DeviceStore } from './devices/store';
import { TillCredentials } from './devices/till-credentials';
import type { ServerTls } from './core/tls';
import { installValue } from './db/settings';
import { CursorCodec } from './core/pagination';
import { InvoiceStore } from './invoices/store';
import { GroupCommit } from './issuing/group-commit';
import { PureWork } from './pure-work/pure-work';
import { RepresentationService } from './representation/service';
import { RepresentationStore } from './representation/store';
import type { Logger } from './platform/logger';
import { FilingThread, type FilingThreadData } from './filing/filing-thread';
import { buildFilingWorkers, InProcessFiling, type Filing, type FilingSettings } from './filing/workers';
import type { SubmissionWorker } from './submission/worker';
import type { WebhookDeliveryWorker } from './webhooks/delivery-worker';
import { WebhookAddressPolicy } from './webhooks/address-policy';
import { WebhookService } from './webhooks/service';
import { TicketbaiIssuing } from './regimes/ticketbai/service';
import { tbaiSigner } from './regimes/ticketbai/signing-identity';
import type { SistemaInformatico } from './regimes/verifactu/record/registro';
import { VerifactuIssuing } from './regimes/verifactu/service';
import { buildNoVerifactu, type NoVerifactuModule } from './no-verifactu/module';

/** Everything the APIs and workers share, built once per engine from its config and database. */
export interface EngineContext {
  config: ResolvedConfig;
  db: Database;
  logger: Logger;
  accounts: AccountStore;
  usage: UsageMeter;
  issuers: IssuerStore;
  declarations: DeclarationService;
  invoices: InvoiceStore;
  groupCommit: GroupCommit;
  /** QR images and TicketBAI signatures on worker threads; closed by engine.stop(). */
  pureWork: PureWork;
  cursors: CursorCodec;
  sistema: SistemaInformatico;
  verifactu: VerifactuIssuing;
  /** The «NO VERI*FACTU» mode: modes, event log, signatures, anomaly detection (issue 32). */
  noVerifactu: NoVerifactuModule;
  ticketbai: TicketbaiIssuing;
  /** The submission and webhook workers, on the filing thread or (config.filingThread false) here. */
  filing: Filing;
  /**
   * The workers themselves, for tests that drive them by hand with an injected clock: absent when
   * they run on the filing thread (config.filingThread), where this thread cannot reach them.
   */
  submissions?: SubmissionWorker;
  webhooks: WebhookService;
  webhookDeliveries?: WebhookDeliveryWorker;
  /** Census NIF checks, issuer clients and their representation. */
  census: CensusService;
  clients: ClientService;
  representation: RepresentationService;
  /** Devices, series ownership and the high-capacity phase: the store issuing reads in its transaction, and the capability. */
  deviceStore: DeviceStore;
  devices: DeviceService;
  /** Addresses known once the servers listen (ports may be 0 in tests). */
  urls: { billing: string; manage: string; panel: string };
  /** TLS of the engine's own ports (beyond loopback, or POS_TLS=on): set before the APIs are built. */
  serverTls?: ServerTls;
  /** Each till's own credential on a shared engine (token and keys bound to its idMaquina). */
  tillCredentials: TillCredentials;
  /** Per-launch secret the panel relay sends so the till's own UI is not metered like POS traffic. */
  relaySecret: string;
}

/**
 * `filingThread`: the engine's filing thread when it was started before the migrations (it loads
 * its code meanwhile); with config.filingThread and none given, one is made here (started by
 * engine.start(), never by a context alone such as the admin CLI's).
 */
export function buildContext(config: ResolvedConfig, db: Database, logger: Logger, options: { filingThread?: FilingThread } = {}): EngineContext {
  const { clock, ids } = config;
  // The filing that enqueued records wake is built below; the hook runs only after a commit.
  const invoices = new InvoiceStore(db, ids, (queueKey) => filing.enqueued(queueKey));
  const issuers = new IssuerStore(db, clock, ids);
  const pureWork = new PureWork({ size: config.workerThreads, logger });
  const deviceStore = new DeviceStore(db);
  const routing = new DeviceRouting(deviceStore, clock, ids);
  const sistema = sistemaInformatico(config, installValue(db, 'numeroInstalacion', () => ids.next('inst')));
  const filingSettings: FilingSettings = {
    submission: config.submission,
    submitAutomatically: config.submitAutomatically,
    webhooks: config.webhooks,
    tbaiEndpoints: config.ticketbai.endpoints,
  };
  // Where webhooks may point: one policy for the API's checks and the in-process delivery worker.
  const webhookAddresses = new WebhookAddressPolicy(config.webhookResolver);
  const workers = config.filingThread ? undefined : buildFilingWorkers(db, clock, ids, logger, filingSettings, undefined, webhookAddresses);
  const filing: Filing = workers
    ? new InProcessFiling(workers, filingSettings)
    : (options.filingThread ?? new FilingThread(filingThreadData(config, db.file), logger));
  // Issuing goes first at the write lock it shares with the filing thread (workers on this thread yield between transactions instead).
  const groupCommit = new GroupCommit(db, undefined, filing instanceof FilingThread ? filing.priority : undefined);
  const software = config.software;
  const noVerifactu = buildNoVerifactu(config, db, sistema, issuers, (identidad, signingTime, xmls) =>
    pureWork.firmarRegistrosSif(identidad, signingTime, xmls),
  );
  const ticketbai = new TicketbaiIssuing({
    invoices,
    issuers,
    clock,
    ids,
    groupCommit,
    pureWork,
    routing,
    software: { licenciaTbai: software.licenciaTbai, nifDesarrolladora: software.productorNif, nombre: software.nombreSistema, version: software.version },
    signer: tbaiSigner(db, clock, { nif: software.productorNif, nombre: software.productorNombre }, config.ticketbai.certificate),
    politicas: config.ticketbai.politicasFirma,
  });
  const webhooks = new WebhookService(db, issuers, clock, ids, webhookAddresses, () => filing.webhooksChanged());
  const cursors = new CursorCodec(installValue(db, 'cursorSecret', () => ids.secret(32)));
  const census = new CensusService(db, clock, logger, config.census);
  const representations = new RepresentationStore(db);
  let iae: IaeCatalogue | undefined;
  // Read on first use: the catalogue is only needed for Bizkaia's self-employed issuers.
  const catalogue = () => (iae ??= IaeCatalogue.load(config.iaeCatalogue));
  const clients = new ClientService({ db, issuers, representations, census, cursors, clock, ids, iae: catalogue });
  const representation = new RepresentationService({
    db,
    issuers,
    clients,
    store: representations,
    clock,
    ids,
    softwareName: `${config.software.nombreSistema} ${config.software.version}`,
    cas: config.representacionCas,
  });
  const accounts = new AccountStore(db, clock, ids);
  const tillCredentials = new TillCredentials(db, accounts, clock, ids);
  const context: EngineContext = {
    config,
    db,
    logger,
    accounts,
    tillCredentials,
    usage: new UsageMeter(db, clock),
    issuers,
    invoices,
    groupCommit,
    pureWork,
    cursors,
    sistema,
    verifactu: new VerifactuIssuing({ invoices, issuers, clock, ids, sistema, groupCommit, pureWork, routing, noVerifactu: noVerifactu.firma }),
    noVerifactu,
    ticketbai,
    filing,
    ...(workers ? { submissions: workers.submissions, webhookDeliveries: workers.webhookDeliveries } : {}),
    webhooks,
    census,
    clients,
    representation,
    deviceStore,
    devices: new DeviceService({
      db,
      devices: deviceStore,
      issuers,
      clients,
      clock,
      // Deactivating a till revokes its own credential (token and keys) in the same transaction.
      onDeactivated: (accountId, idMaquina) => void tillCredentials.revokeMachine(accountId, idMaquina),
    }),
    declarations: new DeclarationService(db, clock, ids, config.assetsDir, config.software),
    relaySecret: ids.secret(24),
    urls: {
      billing: `http://${config.host}:${config.billingPort}`,
      manage: `http://${config.host}:${config.managePort}`,
      panel: `http://${config.host}:${config.panelPort}`,
    },
  };
  return context;
}

/** What the filing thread is started with: the filing settings of `config` and the database file. */
export function filingThreadData(config: ResolvedConfig, file: string): FilingThreadData {
  return {
    file,
    submission: config.submission,
    submitAutomatically: config.submitAutomatically,
    webhooks: config.webhooks,
    tbaiEndpoints: config.ticketbai.endpoints,
  };
}

/** The SistemaInformatico block every VeriFactu record carries, from configuration. */
function sistemaInformatico(config: ResolvedConfig, numeroInstalacion: string): SistemaInformatico {
  const s = config.software;
  return {
    nombreRazon: s.productorNombre,
    nif: s.productorNif,
    nombreSistemaInformatico: s.nombreSistema,
    idSistemaInformatico: s.idSistema,
    version: s.version,
    numeroInstalacion,
    tipoUsoPosibleSoloVerifactu: 'S',
    tipoUsoPosibleMultiOT: 'S',
    indicadorMultiplesOT: 'S',
  };
}
