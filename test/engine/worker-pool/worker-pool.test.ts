// The worker pool (engine/src/platform/worker-pool.ts): answers and errors, parallel threads,
// urgent jobs first, a dead worker replaced with its job rejected, an entry that cannot load,
// shutdown, idle workers that never keep a process alive; and PureWork computing on the pool
// exactly what the main thread computes.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../../../engine/src/config';
import { PureWork } from '../../../engine/src/pure-work/pure-work';
import { EngineError } from '../../../engine/src/core/errors';
import { silentLogger, type Logger } from '../../../engine/src/platform/logger';
import { WorkerPool, WorkerPoolError, defaultPoolSize } from '../../../engine/src/platform/worker-pool';
import { qrPng } from '../../../engine/src/qr/png';
import { firmarAlta, linkOf, type AltaAFirmar } from '../../../engine/src/regimes/ticketbai/record/alta-firmada';
import { POLITICAS_FIRMA } from '../../../engine/src/regimes/ticketbai/politicas';
import { verifyTicketBai } from '../../../engine/src/regimes/ticketbai/record/xades';
import { aCertificadoTbai, aFacturaTbai, aSoftwareTbai, GENERADO_EN } from '../ticketbai/fixtures';

interface FixtureTasks {
  [task: string]: (input: never) => unknown;
  double: (n: number) => number;
  fail: (message: string) => never;
  crash: (code: number) => never;
  rendezvous: (input: { counter: SharedArrayBuffer; expected: number }) => { met: boolean; threadId: number };
}

const FIXTURE = new URL('./tasks-fixture.ts', import.meta.url);
const BROKEN = new URL('./broken-entry-fixture.ts', import.meta.url);
const pools: { close(): Promise<void> }[] = [];
function pool(size: number, entry = FIXTURE, logger?: Logger): WorkerPool<FixtureTasks> {
  const p = new WorkerPool<FixtureTasks>({ entry, size, name: 'test pool', logger });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('WorkerPool', () => {
  it('sizes itself to the cores minus the main thread, at least one', () => {
    expect(defaultPoolSize()).toBeGreaterThanOrEqual(1);
    expect(new WorkerPool({ entry: FIXTURE, size: 0, name: 'zero' }).size).toBe(1);
  });

  it('starts its workers with the first job, or on warm()', async () => {
    const lazy = pool(2);
    expect(lazy.threads).toBe(0);
    expect(await lazy.run('double', 1)).toBe(2);
    expect(lazy.threads).toBe(2);
    const warmed = pool(2);
    warmed.warm();
    expect(warmed.threads).toBe(2);
    expect(await warmed.run('double', 2)).toBe(4);
  });

  it("answers each job with its task's result; a task's error rejects that job only, as an Error with its message", async () => {
    const p = pool(1);
    expect(await Promise.all([1, 2, 3].map((n) => p.run('double', n)))).toEqual([2, 4, 6]);
    const error = await rejection(p.run('fail', 'no such certificate'));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(WorkerPoolError);
    expect((error as Error).message).toBe('no such certificate');
    expect(await p.run('double', 5)).toBe(10);
  });

  it('runs jobs on different threads at the same time, up to its size', async () => {
    const p = pool(2);
    const counter = new SharedArrayBuffer(4);
    const [a, b] = await Promise.all([p.run('rendezvous', { counter, expected: 2 }), p.run('rendezvous', { counter, expected: 2 })]);
    expect(a.met && b.met).toBe(true);
    expect(a.threadId).not.toBe(b.threadId);
  });

  it('runs urgent jobs before the ones already waiting', async () => {
    const p = pool(1);
    const order: number[] = [];
    // The worker is still starting: all three wait in the queues.
    await Promise.all([
      p.run('double', 1).then((v) => order.push(v)),
      p.run('double', 2).then((v) => order.push(v)),
      p.run('double', 3, { urgent: true }).then((v) => order.push(v)),
    ]);
    expect(order).toEqual([6, 2, 4]);
  });

  it('a worker runs an urgent job before the jobs it already holds', async () => {
    const p = pool(1);
    expect(await p.run('double', 0)).toBe(0);
    const counter = new SharedArrayBuffer(4);
    const blocked = p.run('rendezvous', { counter, expected: 2 }); // holds the worker until released below
    const order: number[] = [];
    const rest = Promise.all([
      p.run('double', 1).then((v) => order.push(v)),
      p.run('double', 2).then((v) => order.push(v)),
      p.run('double', 3, { urgent: true }).then((v) => order.push(v)),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the three reach the worker's queue; if not, they are ordered here all the same
    const cells = new Int32Array(counter);
    Atomics.add(cells, 0, 1);
    Atomics.notify(cells, 0);
    expect((await blocked).met).toBe(true);
    await rest;
    expect(order).toEqual([6, 2, 4]);
  });

  it('a worker that dies rejects its jobs with WorkerPoolError (crashed) and is replaced; later jobs are answered', async () => {
    const warnings: string[] = [];
    const p = pool(1, FIXTURE, { ...silentLogger, warn: (message) => warnings.push(message) });
    expect(await p.run('double', 1)).toBe(2);
    // Sent to the same worker as the crash: rejected with it, never left hanging.
    const [crashed, alongside] = await Promise.all([rejection(p.run('crash', 7)), rejection(p.run('double', 3))]);
    for (const error of [crashed, alongside]) {
      expect(error).toBeInstanceOf(WorkerPoolError);
      expect((error as WorkerPoolError).reason).toBe('crashed');
      expect((error as WorkerPoolError).message).toContain('code 7');
    }
    expect(await p.run('double', 4)).toBe(8);
    expect(p.available).toBe(true);
    expect(warnings).toEqual(['worker replaced']);
  });

  it('an entry that cannot load makes the pool unavailable: every job rejected at once, no respawning', async () => {
    const errors: string[] = [];
    const p = pool(2, BROKEN, { ...silentLogger, error: (message) => errors.push(message) });
    const error = await rejection(p.run('double', 1));
    expect(error).toBeInstanceOf(WorkerPoolError);
    expect((error as WorkerPoolError).reason).toBe('unavailable');
    expect((error as Error).message).toContain('cannot load');
    expect(p.available).toBe(false);
    expect(((await rejection(p.run('double', 2))) as WorkerPoolError).reason).toBe('unavailable');
    expect(errors).toEqual(['worker pool unavailable']);
  });

  it('close() rejects the running and the waiting jobs (closed), and every later job', async () => {
    const p = pool(1);
    // Blocks its worker until close() terminates it: nobody else counts in.
    const running = rejection(p.run('rendezvous', { counter: new SharedArrayBuffer(4), expected: 2 }));
    const waiting = rejection(p.run('double', 1));
    await new Promise((resolve) => setTimeout(resolve, 50)); // let the job reach the worker; the outcome is the same if not
    await p.close();
    for (const error of await Promise.all([running, waiting])) {
      expect(error).toBeInstanceOf(WorkerPoolError);
      expect((error as WorkerPoolError).reason).toBe('closed');
    }
    expect(((await rejection(p.run('double', 2))) as WorkerPoolError).reason).toBe('closed');
  });

  it('idle workers never keep the process alive: a script that used the pool and never closed it exits', async () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'idle-exit-fixture.ts')], {
      cwd: root,
      timeout: 60_000, // a safety net: a process held open by its pool would be killed and fail here
    });
    expect(stdout).toBe('answer 42\n');
  });
});

describe('PureWork', () => {
  const cert = aCertificadoTbai();
  const alta = (numero: string): Omit<AltaAFirmar, 'anterior'> => ({
    factura: aFacturaTbai({ numero }),
    emisorNombre: 'EMISOR GIPUZKOA SL',
    software: aSoftwareTbai(),
    generadoEn: GENERADO_EN,
    firma: { privateKeyPem: cert.privateKeyPem, certificatePem: cert.certificatePem, policy: POLITICAS_FIRMA.gipuzkoa },
  });
  const anterior = { serie: 'T', numero: '0', fechaExpedicion: '20-11-2026', signatureValue: 'A'.repeat(344) };
  const url = 'https://prewww2.aeat.es/wlpl/TIKE-CONT/ValidarQR?nif=B12345674&numserie=T1&fecha=20-11-2026&importe=12.10';

  it('computes on the workers exactly what the main thread computes: the QR bytes and the signed alta', async () => {
    const work = new PureWork({ size: 1, logger: silentLogger });
    pools.push(work);
    expect(await work.qrPngBase64(url)).toBe(qrPng(url).toString('base64'));
    const signed = await work.firmarCadenaTbai(anterior, [alta('7'), alta('8')]);
    // RSA PKCS#1 v1.5 is deterministic: the same documents and time give the same signatures.
    const first = firmarAlta({ ...alta('7'), anterior });
    expect(signed).toEqual([first, firmarAlta({ ...alta('8'), anterior: linkOf(alta('7').factura, first.signatureValue) })]);
    for (const s of signed) expect(verifyTicketBai(s.signedXml, cert.certificatePem).valid).toBe(true);
    expect(signed[1]!.signedXml).toContain(`<SignatureValueFirmaFacturaAnterior>${first.signatureValue.slice(0, 100)}<`);
  });

  it('workers that cannot start: the same results on the calling thread, said once in the log', async () => {
    const warnings: string[] = [];
    const work = new PureWork({ size: 1, logger: { ...silentLogger, warn: (message) => warnings.push(message) }, entry: BROKEN });
    pools.push(work);
    expect(await work.qrPngBase64(url)).toBe(qrPng(url).toString('base64'));
    expect(await work.firmarCadenaTbai(anterior, [alta('8')])).toEqual([firmarAlta({ ...alta('8'), anterior })]);
    expect(warnings).toEqual(['pure work runs on the main thread']);
  });

  it('configured with 0 threads: the same results on the calling thread, no worker started', async () => {
    // An entry that cannot load: a started worker would fail and say so in the log.
    const said: string[] = [];
    const work = new PureWork({ size: 0, logger: { info: (m) => said.push(m), warn: (m) => said.push(m), error: (m) => said.push(m) }, entry: BROKEN });
    pools.push(work);
    work.warm();
    expect(await work.qrPngBase64(url)).toBe(qrPng(url).toString('base64'));
    expect(await work.firmarCadenaTbai(anterior, [alta('8')])).toEqual([firmarAlta({ ...alta('8'), anterior })]);
    expect(said).toEqual([]);
  });

  it('a signature whose worker is gone is 503 WORKER_FAILED (nothing to store); a QR is still rendered', async () => {
    const work = new PureWork({ size: 1, logger: silentLogger });
    await work.close();
    const error = await rejection(work.firmarCadenaTbai(anterior, [alta('9')]));
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).httpStatus).toBe(503);
    expect((error as EngineError).code).toBe('WORKER_FAILED');
    expect(await work.qrPngBase64(url)).toBe(qrPng(url).toString('base64'));
  });
});

describe('POS_WORKER_THREADS', () => {
  it('sets the number of worker threads (0: none); unset leaves the default; anything else is refused at start', () => {
    expect(configFromEnv({ POS_WORKER_THREADS: '3' }).workerThreads).toBe(3);
    expect(configFromEnv({ POS_WORKER_THREADS: '0' }).workerThreads).toBe(0);
    expect(configFromEnv({}).workerThreads).toBeUndefined();
    for (const bad of ['-1', '1.5', 'dos']) expect(() => configFromEnv({ POS_WORKER_THREADS: bad })).toThrow('POS_WORKER_THREADS');
  });
});
