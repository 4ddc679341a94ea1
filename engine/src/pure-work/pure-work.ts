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
   * chain each other's signatures). Urgent: requests wait for them. Of a large group the calling
   * thread signs a share itself, one part in 3·workers + 1, at the same time: the pool has one
   * thread per core but the main thread's, and at saturation the RSA signatures (≈ 0.37 ms each)
   * outweigh the main thread's own work per request (≈ 0.15 ms), so a worker alone would bound
   * issuing while the main thread's core waits. A small group (a quiet till) goes to the workers
   * whole, leaving the main thread free.
   */
  async firmarRegistrosSif(identidad: IdentidadFirma, signingTime: Date, xmls: string[]): Promise<string[]> {
    if (!this.pool) return pureWorkTasks.firmarRegistrosSif({ identidad, signingTime, xmls });
    const pool = this.pool;
    const propias = Math.floor(xmls.length / (3 * pool.size + 1));
    const fuera = xmls.slice(propias);
    const parts = Math.min(pool.size, fuera.length);
    const size = Math.ceil(fuera.length / parts);
    const chunks: string[][] = [];
    for (let i = 0; i < fuera.length; i += size) chunks.push(fuera.slice(i, i + size));
    try {
      const enWorkers = Promise.all(chunks.map((chunk) => pool.run('firmarRegistrosSif', { identidad, signingTime, xmls: chunk }, { urgent: true })));
      let aqui: string[] = [];
      if (propias > 0) {
        // The pool posts its jobs on the next turn (setImmediate): let them leave before this thread is busy.
        enWorkers.catch(() => undefined);
        await new Promise<void>((resolve) => setImmediate(resolve));
        aqui = pureWorkTasks.firmarRegistrosSif({ identidad, signingTime, xmls: xmls.slice(0, propias) });
      }
      return [...aqui, ...(await enWorkers).flat()];
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
