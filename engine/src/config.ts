import path from 'node:path';
import type { LimitsConfig } from './account/plans';
import { systemClock, type Clock } from './platform/clock';
import { randomIds, type IdGenerator } from './platform/ids';
import type { Logger } from './platform/logger';

/** Who made this software and how it identifies itself to the AEAT (SistemaInformatico). */
export interface SoftwareIdentity {
  productorNombre: string;
  productorNif: string;
  nombreSistema: string;
  /** IdSistemaInformatico: two characters assigned by the producer. */
  idSistema: string;
  version: string;
  /** TicketBAI software licence (assigned by the treasuries). */
  licenciaTbai: string;
}

export interface EngineConfig {
  dataDir: string;
  host?: string;
  billingPort?: number;
  managePort?: number;
  panelPort?: number;
  /** Static files of the built till UI, served beside the panel API when present. */
  uiDir?: string;
  assetsDir?: string;
  clock?: Clock;
  ids?: IdGenerator;
  logger?: Logger;
  limits?: LimitsConfig;
  software?: Partial<SoftwareIdentity>;
  /** Per-launch panel token; random unless a test fixes it. */
  panelToken?: string;
  /** How often the quota counters are written to disk. */
  usageFlushMs?: number;
}

export const DEFAULT_SOFTWARE: SoftwareIdentity = {
  productorNombre: 'TPV Cumple SL',
  productorNif: 'B87654323',
  nombreSistema: 'TPV Cumple',
  idSistema: 'TC',
  version: '0.1.0',
  licenciaTbai: 'TBAIPRUEBA0000000001',
};

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export interface ResolvedConfig {
  dataDir: string;
  host: string;
  billingPort: number;
  managePort: number;
  panelPort: number;
  uiDir: string | undefined;
  assetsDir: string;
  clock: Clock;
  ids: IdGenerator;
  limits: LimitsConfig;
  software: SoftwareIdentity;
  usageFlushMs: number;
}

export function resolveConfig(config: EngineConfig): ResolvedConfig {
  return {
    dataDir: path.resolve(config.dataDir),
    host: config.host ?? '127.0.0.1',
    billingPort: config.billingPort ?? 8780,
    managePort: config.managePort ?? 8781,
    panelPort: config.panelPort ?? 8782,
    uiDir: config.uiDir,
    assetsDir: config.assetsDir ?? path.join(REPO_ROOT, 'assets'),
    clock: config.clock ?? systemClock,
    ids: config.ids ?? randomIds,
    limits: config.limits ?? {},
    software: { ...DEFAULT_SOFTWARE, ...config.software },
    usageFlushMs: config.usageFlushMs ?? 1000,
  };
}

/** Reads the POS_* environment variables of the headless start. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): EngineConfig {
  const port = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number`);
    return n;
  };
  return {
    dataDir: env.POS_DATA_DIR ?? './data',
    host: env.POS_HOST ?? '127.0.0.1',
    billingPort: port('POS_BILLING_PORT', 8780),
    managePort: port('POS_MANAGE_PORT', 8781),
    panelPort: port('POS_PANEL_PORT', 8782),
  };
}
