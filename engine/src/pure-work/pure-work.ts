import { EngineError } from '../core/errors';
import type { IdentidadFirma } from '../no-verifactu/firma-xades';
import type { Logger } from '../platform/logger';
import { WorkerPool, WorkerPoolError } from '../platform/worker-pool';
import type { AltaAFirmar } from '../regimes/ticketbai/record/alta-firmada';
import type { SignedTicketBai } from '../regimes/ticketbai/record/xades';
import type { FacturaAnteriorTbai } from '../regimes/ticketbai/record/xml';
import { pureWorkTasks } from './pure-work-tasks';

/**
 * The worker module: the TypeScript source when the engine runs from source (tsx, vitest); in the
 * desktop bundle (vite.config.ts) its own entry, engine-pure-work.js, beside engine-utility.js,
 * which holds this module.
 */
const ENTRY = import.meta.url.endsWith('.ts') ? new URL('./pure-work-worker.ts', import.meta.url) : new URL('./engine-pure-work.js', import.meta.url);

const workerFailed = () =>
  new EngineError(503, 'WORKER_FAILED', 'El proceso de firma se ha interrumpido; no se ha registrado nada: reintente', {}, { 'retry-after': '1' });

/**
 * Issuing's CPU-heavy pure work (QR images, TicketBAI and «NO VERI*FACTU» signatures) on a worker pool sized to the
 * machine's cores, so the main thread keeps serving requests and committing.
 *
 * When the workers cannot start at all (an install whose bundle lacks the worker entry), the
 * same functions run on the calling thread: slower, never wrong. A worker that dies in the middle
 * of a signature fails that request with 503 (nothing was stored); a QR is computed after the
 * commit, so its request renders it here instead of failing an invoice already on disk.
 */
export class PureWork {
  /** null: configured without worker threads (size 0), everything on the calling thread. */
  private readonly pool: WorkerPool<typeof pureWorkTasks> | null;
  private warned = false;

  constructor(private readonly options: { size?: number | undefined; logger: Logger; entry?: URL }) {
    this.pool =
      options.size === 0 ? null : new WorkerPool({ entry: options.entry ?? ENTRY, size: options.size, name: 'pure-work pool', logger: options.logger });
  }

  async qrPngBase64(url: string): Promise<string> {
    if (!this.pool) return pureWorkTasks.qrPngBase64(url);
    try {
      return await this.pool.run('qrPngBase64', url);
    } catch (error) {
      if (!(error instanceof WorkerPoolError)) throw error;
      this.fellBack(error);
      return pureWorkTasks.qrPngBase64(url);
    }
  }

  /** Urgent: the chain's next altas wait for these signatures. */
  async firmarCadenaTbai(anterior: FacturaAnteriorTbai | null, altas: Omit<AltaAFirmar, 'anterior'>[]): Promise<SignedTicketBai[]> {
    if (!this.pool) return pureWorkTasks.firmarCadenaTbai({ anterior, altas });
    try {
      return await this.pool.run('firmarCadenaTbai', { anterior, altas }, { urgent: true });
    } catch (error) {
      if (!(error instanceof WorkerPoolError)) throw error;
      if (error.reason !== 'unavailable') throw workerFailed();
      this.fellBack(error);
      return pureWorkTasks.firmarCadenaTbai({ anterior, altas });
    }
  }

  /**
   * «NO VERI*FACTU» records signed ahead of their transaction, split over the workers (they do not
   * chain each other's signatures). Urgent: requests wait for them.
   */
  async firmarRegistrosSif(identidad: IdentidadFirma, signingTime: Date, xmls: string[]): Promise<string[]> {
    if (!this.pool) return pureWorkTasks.firmarRegistrosSif({ identidad, signingTime, xmls });
    const pool = this.pool;
    const parts = Math.min(pool.size, xmls.length);
    const size = Math.ceil(xmls.length / parts);
    const chunks: string[][] = [];
    for (let i = 0; i < xmls.length; i += size) chunks.push(xmls.slice(i, i + size));
    try {
      const signed = await Promise.all(chunks.map((chunk) => pool.run('firmarRegistrosSif', { identidad, signingTime, xmls: chunk }, { urgent: true })));
      return signed.flat();
    } catch (error) {
      if (!(error instanceof WorkerPoolError)) throw error;
      if (error.reason !== 'unavailable') throw workerFailed();
      this.fellBack(error);
      return pureWorkTasks.firmarRegistrosSif({ identidad, signingTime, xmls });
    }
  }

  /** Starts the workers ahead of the first invoice. */
  warm(): void {
    this.pool?.warm();
  }

  close(): Promise<void> {
    return this.pool?.close() ?? Promise.resolve();
  }

  private fellBack(error: WorkerPoolError): void {
    if (this.warned || error.reason !== 'unavailable') return;
    this.warned = true;
    this.options.logger.warn('pure work runs on the main thread', { reason: error.message });
  }
}
