import type { SoftwareIdentity } from '../compliance/config';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import type { SubmissionConfig } from '../submission/config';
import type { Database } from '../db/database';
import { InstallTestCa } from '../representation/test-ca';
import type { SistemaInformatico } from '../regimes/verifactu/record/registro';
import { DeteccionAnomalias } from './anomalias';
import { RegistroEventos } from './eventos';
import { identidadesFirma } from './firma';
import { ExportacionesNoVerifactu } from './exportar';
import { RequerimientosNoVerifactu } from './requerimiento';
import { RestauracionesNoVerifactu } from './restauracion';
import { RestauracionStore } from './restauracion-store';
import { ResumenesNoVerifactu } from './resumen';
import type { IssuerStore } from '../clients/store';
import { FirmaNoVerifactu, type FirmaFuera } from './issuing';
import { ModosSif } from './modo';
import { NoVerifactuStore } from './store';

/** The «NO VERI*FACTU» mode (issue 32): modes, the event log, the signature and anomaly detection. */
export interface NoVerifactuModule {
  modos: ModosSif;
  eventos: RegistroEventos;
  firma: FirmaNoVerifactu;
  anomalias: DeteccionAnomalias;
  exportaciones: ExportacionesNoVerifactu;
  requerimientos: RequerimientosNoVerifactu;
  /** The summary event every six hours and detection after a start (the engine's background pass). */
  resumenes: ResumenesNoVerifactu;
  /** Event 07 after the engine restored one of its copies (restauracion.ts). */
  restauraciones: RestauracionesNoVerifactu;
}

/** What the mode reads of the engine's configuration (config.ts ResolvedConfig has it). */
export interface NoVerifactuSettings {
  clock: Clock;
  ids: IdGenerator;
  software: Pick<SoftwareIdentity, 'productorNif' | 'productorNombre'>;
  submission: { aeat: SubmissionConfig['aeat'] };
}

/** `firmaFuera`: signs records ahead of their transaction off the issuing thread (the worker pool). */
export function buildNoVerifactu(
  config: NoVerifactuSettings,
  db: Database,
  sistema: SistemaInformatico,
  issuers: IssuerStore,
  firmaFuera?: FirmaFuera,
): NoVerifactuModule {
  const { clock, ids } = config;
  const software = config.software;
  const tls = config.submission.aeat.tls;
  const identidad = identidadesFirma(
    db,
    new InstallTestCa(db, clock, ids),
    { nif: software.productorNif, nombre: software.productorNombre },
    tls ? { pfx: tls.pfx, passphrase: tls.passphrase } : undefined,
  );
  const store = new NoVerifactuStore(db);
  const eventos = new RegistroEventos({ db, store, clock, ids, sistema: { ...sistema, tipoUsoPosibleSoloVerifactu: 'N' }, identidad });
  const modos = new ModosSif({ db, store, clock, ids, eventos });
  const anomalias = new DeteccionAnomalias({ db, store, eventos, clock });
  return {
    modos,
    eventos,
    restauraciones: new RestauracionesNoVerifactu({ db, store: new RestauracionStore(db), eventos, issuers }),
    firma: new FirmaNoVerifactu(modos, identidad, clock, firmaFuera),
    anomalias,
    resumenes: new ResumenesNoVerifactu({ db, store, clock, issuers, eventos, anomalias }),
    exportaciones: new ExportacionesNoVerifactu({ db, store, eventos }),
    requerimientos: new RequerimientosNoVerifactu({ store, eventos, aeat: config.submission.aeat }),
  };
}
