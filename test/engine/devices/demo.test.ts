import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEngine, type StartedEngine } from '../../../engine/src/bin/start';
import { DEMO_ISSUER_SIN_ALTA_CAPACIDAD } from '../../../engine/src/demo/devices';
import { onPostgres } from '../../support/engine';
import { postgresUrlOf } from '../../support/postgres';

function envFor(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const database = onPostgres() ? { POS_DATABASE_URL: postgresUrlOf(dataDir) } : {};
  return { POS_DATA_DIR: dataDir, POS_BILLING_PORT: '0', POS_MANAGE_PORT: '0', POS_PANEL_PORT: '0', POS_EMULATORS: 'off', ...database, ...extra };
}

async function dispositivos(started: StartedEngine, nif: string, entorno: 'test' | 'live') {
  const res = await fetch(`${started.urls.manage}/v1/clientes/${nif}/dispositivos`, { headers: { 'x-api-key': started.keys[entorno] } });
  expect(res.status).toBe(200);
  return (await res.json()) as { faseAltaCapacidad: string; modoCadena: string; dispositivos: { idMaquina: string; etiqueta: string; activo: boolean }[] };
}

describe('Demo data on an empty data dir shows the promise', () => {
  it('the own company in activa (por_dispositivo) with the headless till registered in TEST and LIVE; a second issuer in no_contratada', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'demo-devices-'));
    const started = await startEngine({ env: envFor(dataDir) });
    try {
      const identity = JSON.parse(readFileSync(path.join(dataDir, 'till-identity.json'), 'utf8')) as { idMaquina: string };
      expect(identity.idMaquina).toMatch(/^TPV-[0-9A-Z]{12}$/);
      expect(started.keys.idMaquina).toBe(identity.idMaquina);
      expect(started.banner).toContain(`${identity.idMaquina} (Caja principal)`);
      for (const entorno of ['test', 'live'] as const) {
        const own = await dispositivos(started, started.keys.nifEmisor, entorno);
        expect(own).toMatchObject({ faseAltaCapacidad: 'activa', modoCadena: 'por_dispositivo' });
        // Named as a cashier reads it, never the computer's name (issue 29: «vm» meant nothing).
        expect(own.dispositivos).toEqual([expect.objectContaining({ idMaquina: identity.idMaquina, etiqueta: 'Caja principal', activo: true })]);
        const second = await dispositivos(started, DEMO_ISSUER_SIN_ALTA_CAPACIDAD.nif, entorno);
        expect(second).toMatchObject({ faseAltaCapacidad: 'no_contratada', modoCadena: 'unica', dispositivos: [] });
      }
      const arranque = await fetch(`${started.urls.panel}/panel/v1/arranque`, { headers: { authorization: `Bearer ${started.engine.panelToken}` } });
      expect(((await arranque.json()) as { idDispositivo?: string }).idDispositivo).toBe(identity.idMaquina);
    } finally {
      await started.stop();
    }
    // A restart keeps the till's identity and seeds nothing again.
    const again = await startEngine({ env: envFor(dataDir) });
    try {
      const own = await dispositivos(again, again.keys.nifEmisor, 'test');
      expect(own.dispositivos.map((d) => d.idMaquina)).toEqual([again.keys.idMaquina]);
    } finally {
      await again.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('the desktop shell’s identity (POS_TILL_ID, POS_TILL_LABEL) is the till registered', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'demo-devices-'));
    const started = await startEngine({ env: envFor(dataDir, { POS_TILL_ID: 'TPV-0123456789AB', POS_TILL_LABEL: 'caja-escaparate' }) });
    try {
      expect(started.keys.idMaquina).toBe('TPV-0123456789AB');
      const own = await dispositivos(started, started.keys.nifEmisor, 'live');
      expect(own.dispositivos).toEqual([expect.objectContaining({ idMaquina: 'TPV-0123456789AB', etiqueta: 'caja-escaparate' })]);
    } finally {
      await started.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
