import { AccountStore } from './account/store';
import { UsageMeter } from './account/usage';
import { IssuerStore } from './clients/store';
import { DeclarationService } from './compliance/service';
import type { ResolvedConfig } from './config';
import type { Database } from './db/database';
import { installValue } from './db/settings';
import { CursorCodec } from './http/pagination';
import { InvoiceStore } from './invoices/store';
import { GroupCommit } from './issuing/group-commit';
import type { Logger } from './platform/logger';
import { SubmissionWorker } from './submission/worker';
import type { SistemaInformatico } from './verifactu/registro';
import { VerifactuIssuing } from './verifactu/service';

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
  cursors: CursorCodec;
  sistema: SistemaInformatico;
  verifactu: VerifactuIssuing;
  submissions: SubmissionWorker;
  /** Addresses known once the servers listen (ports may be 0 in tests). */
  urls: { billing: string; manage: string; panel: string };
}

export function buildContext(config: ResolvedConfig, db: Database, logger: Logger): EngineContext {
  const { clock, ids } = config;
  const invoices = new InvoiceStore(db, ids);
  const issuers = new IssuerStore(db, clock, ids);
  const groupCommit = new GroupCommit(db);
  const sistema = sistemaInformatico(config, installValue(db, 'numeroInstalacion', () => ids.next('inst')));
  const submissions = new SubmissionWorker(db, clock, ids, logger, config.submission);
  groupCommit.afterCommit = () => submissions.wake();
  const cursors = new CursorCodec(installValue(db, 'cursorSecret', () => ids.secret(32)));
  return {
    config,
    db,
    logger,
    accounts: new AccountStore(db, clock, ids),
    usage: new UsageMeter(db, clock),
    issuers,
    invoices,
    groupCommit,
    cursors,
    sistema,
    verifactu: new VerifactuIssuing({ invoices, issuers, clock, ids, sistema, groupCommit }),
    submissions,
    declarations: new DeclarationService(db, clock, ids, config.assetsDir, config.software),
    urls: {
      billing: `http://${config.host}:${config.billingPort}`,
      manage: `http://${config.host}:${config.managePort}`,
      panel: `http://${config.host}:${config.panelPort}`,
    },
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
