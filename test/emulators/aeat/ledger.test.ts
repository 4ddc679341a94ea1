import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAeatEmulator } from '../../../engine/emulators/aeat/index';
import { CensusDirectory, SEED_TAXPAYERS, startEmulators } from '../../../engine/emulators/index';
import { ChainBuilder, SOAP_PATH, buildEnvelope } from './builders';
import { DEMO, T0, TestClock, parseRespuesta } from './helpers';

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'aeat-ledger-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function post(base: string, xml: string): Promise<string> {
  const r = await fetch(base + SOAP_PATH, { method: 'POST', body: xml, headers: { 'content-type': 'text/xml' } });
  return r.text();
}

describe('ledger', () => {
  it('persists in its own SQLite file (WAL) and survives a restart', async () => {
    const dataDir = tempDir();
    const clock = new TestClock(T0);
    const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
    const a = chain.alta();
    const b = chain.alta({ huellaOverride: 'C'.repeat(64) });

    const e1 = createAeatEmulator({ dataDir, clock: clock.now, xsdPoolSize: 1 });
    const p1 = await e1.listen(0);
    const first = parseRespuesta(await post(`http://127.0.0.1:${p1}`, buildEnvelope({ obligado: DEMO, records: [a, b] })));
    await e1.close();

    const e2 = createAeatEmulator({ dataDir, clock: clock.now, xsdPoolSize: 1 });
    try {
      const l = e2.ledger;
      expect(l.countRecords()).toBe(2);
      expect(l.countRecords(DEMO.nif)).toBe(2);
      expect(l.countRecords('89890001K')).toBe(0);
      expect(l.getRecord(a.id)).toMatchObject({
        key: `${DEMO.nif}|${a.id.numSerie}|${a.id.fecha}`,
        tipo: 'alta',
        estado: 'Correcto',
        estadoRegistro: 'Correcta',
        csv: first.csv,
        huella: a.huella,
        receivedCount: 1,
      });
      expect(l.getRecord(b.id)).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2000, csv: first.csv });
      expect(l.getRecord({ emisor: DEMO.nif, numSerie: 'X', fecha: '01-03-2025' })).toBeNull();
      expect(l.submissions()).toEqual([
        expect.objectContaining({
          id: 1,
          obligado: DEMO.nif,
          presentador: DEMO.nif,
          recordCount: 2,
          csv: first.csv,
          estadoEnvio: 'ParcialmenteCorrecto',
          accepted: 1,
          acceptedWithErrors: 1,
          rejected: 0,
          outcome: 'processed',
          flowViolation: false,
          requestSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        }),
      ]);
      expect(l.chainIntact(DEMO.nif)).toBe(true);
      expect(l.chainHead(DEMO.nif)).toMatchObject({ numSerie: b.id.numSerie, length: 2 });
      expect(l.maxBatchSize()).toBe(2);
      expect(l.duplicatesReceived()).toEqual([]);

      // The chain and the duplicate detection carry on after the restart.
      const p2 = await e2.listen(0);
      clock.advance(60);
      const again = parseRespuesta(await post(`http://127.0.0.1:${p2}`, buildEnvelope({ obligado: DEMO, records: [a, chain.alta()] })));
      expect(again.lineas.map((x) => x.codigo)).toEqual([3000, null]);
      expect(l.chainIntact(DEMO.nif)).toBe(true);
      expect(l.duplicatesReceived()).toEqual([{ key: `${DEMO.nif}|${a.id.numSerie}|${a.id.fecha}`, huella: a.huella, times: 2 }]);
      expect(l.summary()).toMatchObject({ submissions: 2, registered: 3, retransmissions: 1, duplicatesReceived: 1 });
    } finally {
      await e2.close();
    }
  });

  it('CSVs and IdPeticion come from the injected id source (deterministic)', async () => {
    const make = async (): Promise<string | null> => {
      const emu = createAeatEmulator({ clock: () => new Date(T0), ids: () => 'fixed-id', xsdPoolSize: 1 });
      try {
        const port = await emu.listen(0);
        const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
        return parseRespuesta(await post(`http://127.0.0.1:${port}`, buildEnvelope({ obligado: DEMO, records: [chain.alta()] }))).csv;
      } finally {
        await emu.close();
      }
    };
    const c1 = await make();
    expect(c1).toMatch(/^A-[A-Z0-9]{14}$/);
    expect(await make()).toBe(c1);
  });
});

describe('census directory', () => {
  it('seeds fictitious taxpayers including the demo account and AEAT example NIF', () => {
    const c = new CensusDirectory();
    expect(c.get('B12345674')).toEqual({ nif: 'B12345674', nombre: 'COMERCIAL DEMO SL', estado: 'alta' });
    expect(c.isIdentified('89890001K')).toBe(true);
    expect(SEED_TAXPAYERS.filter((t) => t.estado === 'baja')).toHaveLength(1);
    expect(SEED_TAXPAYERS.filter((t) => t.estado === 'revocado')).toHaveLength(1);
    expect(c.isIdentified('A11111119')).toBe(false);
    c.addTaxpayer({ nif: 'b00000000', nombre: 'Nueva SL' });
    expect(c.get('B00000000')?.estado).toBe('alta');
    c.reset();
    expect(c.get('B00000000')).toBeUndefined();
  });
});

describe('startEmulators', () => {
  it('starts the shared server with the AEAT emulator and control API, and stops cleanly', async () => {
    const dataDir = tempDir();
    const emus = await startEmulators({ port: 0, dataDir, clock: () => new Date(T0) });
    try {
      expect(emus.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = (await (await fetch(`${emus.url}/__control/health`)).json()) as { ok: boolean; emulators: string[] };
      expect(health).toMatchObject({ ok: true, emulators: expect.arrayContaining(['aeat', 'census']) });
      const chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
      const resp = parseRespuesta(await post(emus.url, buildEnvelope({ obligado: DEMO, records: [chain.alta()] })));
      expect(resp.estadoEnvio).toBe('Correcto');
      expect(emus.aeat.ledger.countRecords()).toBe(1);
    } finally {
      await emus.close();
    }
    await expect(fetch(`${emus.url}/__control/health`)).rejects.toThrow();
  });
});
