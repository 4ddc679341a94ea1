import { AccountStore } from './account/store';
import { UsageMeter } from './account/usage';
import { IssuerStore } from './clients/store';
import { DeclarationService } from './compliance/service';
import type { ResolvedConfig } from './config';
import type { Database } from './db/database';
import type { Logger } from './platform/logger';

/** Everything the APIs and workers share, built once per engine from its config and database. */
export interface EngineContext {
  config: ResolvedConfig;
  db: Database;
  logger: Logger;
  accounts: AccountStore;
  usage: UsageMeter;
  issuers: IssuerStore;
  declarations: DeclarationService;
  /** Addresses known once the servers listen (ports may be 0 in tests). */
  urls: { billing: string; manage: string; panel: string };
}

export function buildContext(config: ResolvedConfig, db: Database, logger: Logger): EngineContext {
  const { clock, ids } = config;
  return {
    config,
    db,
    logger,
    accounts: new AccountStore(db, clock, ids),
    usage: new UsageMeter(db, clock),
    issuers: new IssuerStore(db, clock, ids),
    declarations: new DeclarationService(db, clock, ids, config.assetsDir, config.software),
    urls: {
      billing: `http://${config.host}:${config.billingPort}`,
      manage: `http://${config.host}:${config.managePort}`,
      panel: `http://${config.host}:${config.panelPort}`,
    },
  };
}
