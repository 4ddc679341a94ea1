import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AeatEmulator, DocumentValidator, XsdResult } from '../../../engine/emulators/aeat/index';
import { XsdValidator, loadVerifactuSchemas } from '../../../engine/emulators/aeat/index';
import type { Ledger } from '../../../engine/emulators/aeat/ledger';
import { referenceDir } from '../../../engine/emulators/paths';
import type { BuiltRecord } from './builders';
import { ChainBuilder, buildEnvelope } from './builders';
import type { Harness } from './helpers';
import { DEMO, T0, parseFault, parseRespuesta, startHarness } from './helpers';

// The ledger work of a request runs while libxml2 still validates its document, in a transaction
// committed only if the document is valid. These tests hold a document's verdict back (a
// validator wrapping the real one) to look at the emulator while that transaction is open.

const OTHER = { nif: '89890001K', nombre: 'CONTRIBUYENTE PRUEBAS AEAT' };
/** Documents naming this series get their verdict only when the test releases it. */
const HELD = 'HELD';
/** Documents naming this series make the validator throw (a crashed worker, a pool timeout). */
const CRASH = 'CRASH';

/** The real validator, with verdicts a test can hold back or turn into a validator failure. */
class ScriptedValidator implements DocumentValidator {
  private readonly inner = new XsdValidator(loadVerifactuSchemas(referenceDir(), 'SuministroLR.xsd'), { poolSize: 2 });
  private readonly held: Array<() => void> = [];
  /** Resolves each time a verdict has been handed to the emulator. */
  readonly verdicts: Array<Promise<void>> = [];

  validate(xml: string | Uint8Array): Promise<XsdResult> {
    // Read before the bytes are handed over to the worker.
    const text = typeof xml === 'string' ? xml : Buffer.from(xml).toString('latin1');
    let verdict = this.inner.validate(xml);
    if (text.includes(`>${CRASH}-`)) verdict = verdict.then(() => Promise.reject(new Error('xsd worker crashed')));
    if (text.includes(`>${HELD}-`)) {
      const real = verdict;
      verdict = new Promise<void>((release) => this.held.push(release)).then(() => real);
    }
    this.verdicts.push(verdict.then(() => undefined, () => undefined));
    return verdict;
  }

  /** Hands over the verdicts held so far. */
  release(): void {
    for (const r of this.held.splice(0)) r();
  }

  warmup(): Promise<void> {
    return this.inner.warmup();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

async function start(speculativeLedger = true): Promise<{ h: Harness; xsd: ScriptedValidator; db: Ledger['db'] }> {
  const xsd = new ScriptedValidator();
  const h = await startHarness({ xsdValidator: xsd, speculativeLedger });
  harnesses.push(h);
  return { h, xsd, db: (h.emu.ledger as Ledger).db };
}

/** Everything the ledger holds, in order; submissions without their timings (validateMs, processMs). */
function dump(emu: AeatEmulator) {
  const l = emu.ledger;
  const nifs = ['B12345674', OTHER.nif];
  return {
    submissions: l.submissions().map(({ validateMs, processMs, ...s }) => ({ ...s, timed: validateMs !== null && processMs !== null })),
    records: l.records(),
    presentations: l.presentations(),
    heads: nifs.map((n) => l.chainHeads(n)),
    summary: l.summary(),
  };
}

/** A record that parses and is read as usual, but that SuministroLR.xsd refuses (maxLength 120). */
function schemaInvalid(chain: ChainBuilder, numSerie?: string): BuiltRecord {
  return chain.alta({ nombreRazonEmisor: 'X'.repeat(121), ...(numSerie ? { numSerie } : {}) });
}

const nextMacrotask = (): Promise<void> => new Promise((r) => setImmediate(r));

/** Until a request's transaction is open on the ledger's connection (its verdict held back). */
async function untilOpen(db: Ledger['db']): Promise<void> {
  await vi.waitFor(() => expect(db.inTransaction).toBe(true), { timeout: 30_000, interval: 5 });
}

describe('ledger work while the schema is validated', () => {
  it('writes a valid request while its verdict is still to come, and commits it once the verdict is valid', async () => {
    const { h, xsd, db } = await start();
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), HELD);
    const answer = h.post(buildEnvelope({ obligado: DEMO, records: [chain.alta(), chain.alta()] }));
    // Its records are written (in the open transaction) before the verdict is known.
    await untilOpen(db);
    expect(h.emu.ledger.countRecords(DEMO.nif)).toBe(2);
    xsd.release();
    const r = await answer;
    expect(r.status).toBe(200);
    expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
    expect(db.inTransaction).toBe(false);
    expect(h.emu.ledger.chainHead(DEMO.nif)).toMatchObject({ length: 2, numSerie: chain.last?.numSerie });
    expect(h.emu.ledger.submissions()).toEqual([
      expect.objectContaining({ outcome: 'processed', recordCount: 2, estadoEnvio: 'Correcto', validateMs: expect.any(Number) }),
    ]);
  });

  it('rolls back the work of a request the schema refuses: only its refused row stays, and the next request gets the id it had', async () => {
    const { h, xsd, db } = await start();
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), HELD);
    const answer = h.post(buildEnvelope({ obligado: DEMO, records: [chain.alta(), schemaInvalid(chain)] }));
    await untilOpen(db);
    expect(h.emu.ledger.countRecords(DEMO.nif)).toBe(2);
    // A control read arriving now waits for the transaction's end: it never shows rows then rolled back.
    const arrived = new Promise((r) => h.emu.server.once('request', r));
    const summary = h.control('GET', '/__control/ledger/summary');
    await arrived;
    await nextMacrotask();
    expect(db.inTransaction).toBe(true);
    xsd.release();
    const r = await answer;
    expect(r.status).toBe(500);
    expect((await summary).json).toMatchObject({ submissions: 1, processedSubmissions: 0, faultedSubmissions: 1, records: 0, presentations: 0 });
    expect(parseFault(r.text).faultstring).toMatch(/^Codigo\[4102\]/);
    expect(h.emu.ledger.records()).toEqual([]);
    expect(h.emu.ledger.presentations()).toEqual([]);
    expect(h.emu.ledger.chainHeads(DEMO.nif)).toEqual([]);
    expect(h.emu.ledger.submissions()).toEqual([
      expect.objectContaining({ id: 1, outcome: 'fault', faultCode: '4102', idPeticion: null, recordCount: 2, obligado: DEMO.nif }),
    ]);

    // The chain the refused request would have started is still unstarted; the id it drew is the next request's.
    const fresh = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const next = await h.post(buildEnvelope({ obligado: DEMO, records: [fresh.alta()] }));
    const { h: reference } = await start();
    const expected = await reference.post(buildEnvelope({ obligado: DEMO, records: [new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000)).alta()] }));
    expect(next.text).toBe(expected.text);
    expect(h.emu.ledger.submissions().map((s) => s.id)).toEqual([1, 2]);
    expect(h.emu.ledger.chainHead(DEMO.nif)).toMatchObject({ length: 1 });
  });

  it('keeps the refused row of a request that arrives while another request is still open at the ledger, whichever way that one ends', async () => {
    for (const heldIsValid of [true, false]) {
      const { h, xsd, db } = await start();
      const held = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), HELD);
      const first = h.post(
        buildEnvelope({ obligado: DEMO, records: heldIsValid ? [held.alta()] : [held.alta(), schemaInvalid(held)] }),
      );
      await untilOpen(db);

      // Refused while the first one's transaction is open: a schema error that does not parse,
      // and an obligado missing from the census (4104).
      const unknown = new ChainBuilder('A11111119', new Date(T0 - 3600_000));
      const refused = [
        h.post(buildEnvelope({ obligado: DEMO, records: [new ChainBuilder(DEMO.nif, new Date(T0)).alta()] }).replace('</sum1:NombreRazonEmisor>', '</sum1:NombreRazon>')),
        h.post(buildEnvelope({ obligado: { nif: 'A11111119', nombre: 'NO CENSADA SL' }, records: [unknown.alta()] })),
      ];
      // Their verdicts are in (their parse and validation never wait for the turn); they wait for it now.
      await vi.waitFor(() => expect(xsd.verdicts).toHaveLength(3), { timeout: 30_000 });
      await Promise.all(xsd.verdicts.slice(1));
      await nextMacrotask();
      expect(db.inTransaction).toBe(true);
      xsd.release();

      const [a, b, c] = await Promise.all([first, ...refused]);
      expect(a?.status).toBe(heldIsValid ? 200 : 500);
      expect(parseFault(b?.text ?? '').faultstring).toMatch(/^Codigo\[4102\]/);
      expect(parseFault(c?.text ?? '').faultstring).toMatch(/^Codigo\[4104\]/);
      // The held request's row first (its turn came first); the other two in the order they queued.
      const rows = h.emu.ledger.submissions().map((s) => `${s.outcome} ${s.faultCode}`);
      expect(rows[0]).toBe(heldIsValid ? 'processed null' : 'fault 4102');
      expect(rows.slice(1).sort()).toEqual(['fault 4102', 'fault 4104']);
      expect(h.emu.ledger.countRecords()).toBe(heldIsValid ? 1 : 0);
      expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
    }
  });

  it('lands concurrent requests of two obligados, each chain intact', async () => {
    const { h } = await start();
    const demo = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const other = new ChainBuilder(OTHER.nif, new Date(T0 - 3600_000));
    const send = async (obligado: typeof DEMO, chain: ChainBuilder): Promise<string[]> => {
      const estados: string[] = [];
      for (let n = 0; n < 4; n++) {
        const r = await h.post(buildEnvelope({ obligado, records: Array.from({ length: 50 }, () => chain.alta()) }));
        estados.push(parseRespuesta(r.text).estadoEnvio);
      }
      return estados;
    };
    const [a, b] = await Promise.all([send(DEMO, demo), send(OTHER, other)]);
    expect([a, b]).toEqual([Array(4).fill('Correcto'), Array(4).fill('Correcto')]);
    for (const [nif, chain] of [[DEMO.nif, demo], [OTHER.nif, other]] as const) {
      expect(h.emu.ledger.chainIntact(nif)).toBe(true);
      expect(h.emu.ledger.countRecords(nif)).toBe(200);
      expect(h.emu.ledger.chainHead(nif)).toMatchObject({ length: 200, numSerie: chain.last?.numSerie });
    }
    expect(h.emu.ledger.submissions().filter((s) => s.outcome === 'processed')).toHaveLength(8);
  });

  it('answers a mixed corpus byte for byte as the path that waits for the verdict, and leaves the same ledger', async () => {
    const corpus = (): Array<{ envelope: string; faults?: unknown }> => {
      const demo = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
      const other = new ChainBuilder(OTHER.nif, new Date(T0 - 3600_000));
      const first = demo.alta();
      const crash = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), CRASH);
      return [
        { envelope: buildEnvelope({ obligado: DEMO, records: [first, demo.alta(), demo.alta({ huellaOverride: 'C'.repeat(64) })] }) },
        // Refused by the schema after parsing fine: nothing of it may stay.
        { envelope: buildEnvelope({ obligado: DEMO, records: [demo.alta(), schemaInvalid(demo)] }) },
        { envelope: buildEnvelope({ obligado: OTHER, records: [other.alta(), other.alta()] }) },
        // A resend and a duplicate key beside a new record.
        { envelope: buildEnvelope({ obligado: DEMO, records: [first, demo.alta({ numSerie: first.id.numSerie }), demo.alta()] }) },
        // Unknown obligado, then a document that does not parse.
        { envelope: buildEnvelope({ obligado: { nif: 'A11111119', nombre: 'NO CENSADA SL' }, records: [demo.alta()] }) },
        { envelope: buildEnvelope({ obligado: DEMO, records: [demo.alta()] }).replace('</sum1:NombreRazonEmisor>', '</sum1:NombreRazon>') },
        // The validator fails (nothing written, the answer as before), then a verdict override is armed.
        { envelope: buildEnvelope({ obligado: DEMO, records: [crash.alta()] }) },
        { envelope: buildEnvelope({ obligado: DEMO, records: [demo.alta(), demo.alta(), demo.alta()] }), faults: { rejectNext: { count: 1, codigo: 1100 }, acceptWithErrorsNext: { count: 1, codigo: 2005 } } },
        { envelope: buildEnvelope({ obligado: OTHER, records: [other.alta(), demo.alta()] }) },
        { envelope: buildEnvelope({ obligado: DEMO, records: [demo.anulacion(first.id), demo.alta()], incidencia: true }) },
      ];
    };
    const run = async (speculativeLedger: boolean): Promise<{ answers: Array<{ status: number; text: string }>; ledger: ReturnType<typeof dump> }> => {
      const { h } = await start(speculativeLedger);
      const answers: Array<{ status: number; text: string }> = [];
      for (const item of corpus()) {
        if (item.faults) expect((await h.control('PUT', '/__control/faults', item.faults)).status).toBe(200);
        answers.push(await h.post(item.envelope));
        h.clock.advance(7);
      }
      return { answers, ledger: dump(h.emu) };
    };
    const sequential = await run(false);
    const speculative = await run(true);
    expect(sequential.answers.map((a) => a.status)).toEqual([200, 500, 200, 200, 500, 500, 500, 200, 200, 200]);
    expect(sequential.answers[6]?.text).toMatch(/emulator_error.*xsd worker crashed/);
    expect(speculative.answers).toEqual(sequential.answers);
    expect(speculative.ledger).toEqual(sequential.ledger);
    expect(sequential.ledger.submissions).toHaveLength(9);
  });
});
