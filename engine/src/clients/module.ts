import type { FastifyInstance } from 'fastify';
import { censusRoutes } from '../census/routes';
import { CensusService } from '../census/service';
import type { CensusConfig } from '../census/config';
import type { SoftwareIdentity } from '../compliance/config';
import type { Database } from '../db/database';
import type { CursorCodec } from '../core/pagination';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { representationRoutes } from '../representation/routes';
import { RepresentationService } from '../representation/service';
import { RepresentationStore } from '../representation/store';
import { IaeCatalogue } from './iae';
import { clientRoutes } from './routes';
import { ClientService } from './service';
import type { IssuerStore } from './store';

export interface ClientsModule {
  census: CensusService;
  clients: ClientService;
  representation: RepresentationService;
}

/** The census check, the issuer-client lifecycle and representation, wired from the config. */
export function buildClientsModule(input: {
  config: {
    clock: Clock;
    ids: IdGenerator;
    census: CensusConfig;
    iaeCatalogue: string;
    software: Pick<SoftwareIdentity, 'nombreSistema' | 'version'>;
    representacionCas: string[];
  };
  db: Database;
  logger: Logger;
  issuers: IssuerStore;
  cursors: CursorCodec;
}): ClientsModule {
  const { config, db, logger, issuers, cursors } = input;
  const { clock, ids } = config;
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
  return { census, clients, representation };
}

/** Management API: POST /v1/nif/validar, the /v1/clientes endpoints and representation. */
export function registerClientsManageRoutes(app: FastifyInstance, module: ClientsModule): void {
  censusRoutes(app, { census: module.census });
  clientRoutes(app, { clients: module.clients });
  representationRoutes(app, { representation: module.representation });
}
