import { afterAll, beforeAll, expect } from 'vitest';
import type { EngineConfig } from '../../engine/src/config';
import type { AuthorityAdapter } from '../../engine/src/core/authority';
import type { ManualClock } from '../../engine/src/platform/clock';
import type { Hacienda } from '../../src-shared/api/common';
import { aFacturaF2 } from '../fixtures/verifactu';
import { makeTestEngine, type TestEngine } from './engine';
import { startTestEmulators, type Emulators } from './emulators';
import { sqliteOf } from './sqlite-of';

export type { Emulators } from './emulators';

type SubmissionConfig = NonNullable<EngineConfig['submission']>;

export interface EngineWithEmulatorsOptions {
  /** Shared by the engine and the emulators. */
  clock: ManualClock;
  /** The AEAT emulator's TiempoEsperaEnvio. */
  waitSeconds: number;
  /** AEAT settings besides the url, which is always the emulator's. */
  aeat?: Omit<NonNullable<SubmissionConfig['aeat']>, 'url'>;
  /** Other filing settings (backoffBaseMs, random…). */
  submission?: Omit<SubmissionConfig, 'aeat'>;
  /** TicketBAI issuers to create on the demo account; the treasuries' endpoints are pointed at the emulators. */
  ticketbaiIssuers?: readonly { nif: string; nombre: string; hacienda: Hacienda }[];
}

export interface EngineWithEmulators {
  readonly t: TestEngine;
  readonly emu: Emulators;
  db(): ReturnType<typeof sqliteOf>;
  /** Submission jobs still waiting. */
  jobsLeft(): number;
  /** Runs the worker, a second of the clock between rounds (at most 30), until no job waits. */
  fileEverything(): Promise<void>;
}

/** Registers beforeAll/afterAll that start the emulators and an engine filing with them; read `t`/`emu` inside tests. */
export function useEngineWithEmulators(options: EngineWithEmulatorsOptions): EngineWithEmulators {
  let t: TestEngine | undefined;
  let emu: Emulators | undefined;

  beforeAll(async () => {
    emu = await startTestEmulators({ clock: options.clock, waitSeconds: options.waitSeconds });
    t = await makeTestEngine({
      clock: options.clock,
      submission: { ...options.submission, aeat: { url: { test: emu.aeatUrl, live: emu.aeatUrl }, ...options.aeat } },
    });
    if (options.ticketbaiIssuers) {
      const base = emu.url;
      Object.assign(t.engine.context.config.ticketbai.endpoints.base, {
        araba: { test: `${base}/tbai/araba`, live: `${base}/tbai/araba` },
        bizkaia: { test: `${base}/tbai/bizkaia`, live: `${base}/tbai/bizkaia` },
        gipuzkoa: { test: `${base}/tbai/gipuzkoa`, live: `${base}/tbai/gipuzkoa` },
      });
      const ctx = t.engine.context;
      const account = ctx.accounts.listAccounts()[0]!;
      for (const issuer of options.ticketbaiIssuers) ctx.issuers.create({ accountId: account.id, entorno: 'test', ...issuer });
    }
  });
  afterAll(async () => {
    await t?.close();
    await emu?.close();
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useEngineWithEmulators: read t/emu inside a test, after beforeAll');
    return value;
  };
  const db = () => sqliteOf(ready(t).engine.context.db);
  const jobsLeft = () => (ready(t).engine.context.db.statement('SELECT COUNT(*) AS n FROM submission_jobs').get() as { n: number }).n;
  return {
    get t() {
      return ready(t);
    },
    get emu() {
      return ready(emu);
    },
    db,
    jobsLeft,
    async fileEverything() {
      for (let i = 0; i < 30 && jobsLeft() > 0; i++) {
        await ready(t).engine.context.submissions.drainDue();
        options.clock.advance(1000);
      }
      expect(jobsLeft()).toBe(0);
    },
  };
}

/** `n` simplified tickets F2 of series `serie` (numbers 0…n−1), each answered 200; their idFactura in order. */
export async function issueTickets(env: EngineWithEmulators, serie: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await env.t.billing('POST', '/v1/verifactu/crear', {
      body: aFacturaF2({ cabecera: { serie, numero: String(i), fechaExpedicion: '20-11-2026', tipoFactura: 'F2', descripcion: 'Ticket' } }),
    });
    expect(res.statusCode).toBe(200);
    ids.push(res.json().idFactura as string);
  }
  return ids;
}

/**
 * Puts `adapter` in the place of its authority's on a worker already built (tests wrap the real one
 * to count, hold or drop what it sends, then put it back): the engine itself passes every adapter
 * to the worker's constructor and never changes them.
 */
export function replaceAdapter(worker: unknown, adapter: AuthorityAdapter): void {
  (worker as { adapters: Map<string, AuthorityAdapter> }).adapters.set(adapter.autoridad, adapter);
}
