// VeriFactu issuing follows the phase table (spec: "Phase faseAltaCapacidad", "Series ownership",
// "Device activo"), in TEST and LIVE: one chain per (environment, issuer) until `activa`; then one
// per device, the centralized writer __SHARD0__ keeping the issuer's chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entorno } from '../../../src-shared/api/common';
import { ManualClock } from '../../../engine/src/platform/clock';
import { verifactuChainKey } from '../../../engine/src/regimes/verifactu/service';
import { startTestEmulators } from '../../support/emulators';
import { useEngineWithEmulators, type Emulators } from '../../support/filing';
import {
  VF,
  chainKeysOfInvoice,
  devicesView,
  chainOf,
  counts,
  dbRows,
  deactivateDevice,
  expectLinked,
  keyOf,
  numeroInstalacionIn,
  registerDevice,
  reserveSeries,
  setPhase,
  setUpVerifactuIssuers,
  ticket,
} from './support';
import { renameTable } from '../../support/db-faults';

const clock = new ManualClock('2026-11-20T10:00:00.000Z');
const env = useEngineWithEmulators({ clock, waitSeconds: 0, aeat: { timeoutMs: 3000 } });
// LIVE files with an AEAT of its own, as the real one has separate test and production services:
// the issuer's single chain in TEST and in LIVE is the same installation.
let liveAeat: Emulators;
beforeAll(async () => {
  setUpVerifactuIssuers(env);
  liveAeat = await startTestEmulators({ clock, waitSeconds: 0 });
  env.t.engine.context.config.submission.aeat.url.live = liveAeat.aeatUrl;
});
afterAll(async () => liveAeat.close());
const aeatOf = (entorno: Entorno) => (entorno === 'live' ? liveAeat.aeat : env.emu.aeat);

const ENTORNOS: Entorno[] = ['test', 'live'];

async function crear(entorno: Entorno, body: unknown) {
  return env.t.billing('POST', '/v1/verifactu/crear', { key: keyOf(env, entorno), body });
}
async function crearOk(entorno: Entorno, body: unknown): Promise<{ idFactura: string; huella: string; yaExistente?: boolean }> {
  const res = await crear(entorno, body);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
/** The request is refused with that status and code, and nothing at all is stored. */
async function expectRefused(entorno: Entorno, body: unknown, status: number, code: string) {
  const before = counts(env);
  const res = await crear(entorno, body);
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().code).toBe(code);
  expect(counts(env)).toEqual(before);
  return res.json();
}
const installNumber = () => env.t.engine.context.sistema.numeroInstalacion;
const deviceRow = (entorno: Entorno, nif: string, idMaquina: string) =>
  dbRows<{ numeroInstalacion: string | null; activo: number }>(env.t.engine.context.db, 'SELECT numeroInstalacion, activo FROM devices WHERE entorno = ? AND nif = ? AND idMaquina = ?', entorno, nif, idMaquina)[0];
const owner = (entorno: Entorno, nif: string, serie: string) =>
  dbRows<{ idMaquinaPropietaria: string }>(env.t.engine.context.db, 'SELECT idMaquinaPropietaria FROM device_series WHERE entorno = ? AND nif = ? AND serie = ?', entorno, nif, serie)[0]
    ?.idMaquinaPropietaria;

describe.each(ENTORNOS)('no_contratada (%s): one chain per (environment, issuer); idMaquina is metadata', (entorno) => {
  const E = VF.no_contratada;
  it('invoices from two idMaquina share the issuer chain, keep idMaquina on the record, claim no series and note nothing', async () => {
    const a = await crearOk(entorno, ticket(E, `NC-${entorno}`, '1', 'caja-1'));
    const b = await crearOk(entorno, ticket(E, `NC-${entorno}`, '2', 'caja-2'));
    const chain = chainOf(env, verifactuChainKey(entorno, E.nif));
    expect(chain.map((r) => r.invoiceId)).toEqual([a.idFactura, b.idFactura]);
    expect(expectLinked(chain)).toBe(true);
    expect(chain.map((r) => r.idMaquina)).toEqual(['caja-1', 'caja-2']);
    expect(chain.map((r) => numeroInstalacionIn(r.xml))).toEqual([installNumber(), installNumber()]);
    expect(dbRows(env.t.engine.context.db, 'SELECT * FROM device_series WHERE nif = ?', E.nif)).toEqual([]);
    expect(dbRows(env.t.engine.context.db, 'SELECT * FROM device_observations WHERE nif = ?', E.nif)).toEqual([]);
  });
});

describe.each(ENTORNOS)('preparacion (%s): single chain unchanged; idMaquina ignored for routing but noted', (entorno) => {
  const E = VF.preparacion;
  it('routes to the issuer chain and notes each idMaquina with primeraVez/ultimaVez, in its own environment', async () => {
    const t0 = clock.now().toISOString();
    await crearOk(entorno, ticket(E, `PR-${entorno}`, '1', 'caja-1'));
    clock.advance(60_000);
    const t1 = clock.now().toISOString();
    await crearOk(entorno, ticket(E, `PR-${entorno}`, '2', 'caja-1'));
    await crearOk(entorno, ticket(E, `PR-${entorno}`, '3', 'caja-2'));
    await crearOk(entorno, ticket(E, `PR-${entorno}`, '4'));
    const chain = chainOf(env, verifactuChainKey(entorno, E.nif));
    expect(chain).toHaveLength(4);
    expect(expectLinked(chain)).toBe(true);
    expect(new Set(chain.map((r) => numeroInstalacionIn(r.xml)))).toEqual(new Set([installNumber()]));
    const notes = dbRows(env.t.engine.context.db, 'SELECT idMaquina, primeraVez, ultimaVez FROM device_observations WHERE entorno = ? AND nif = ? ORDER BY idMaquina', entorno, E.nif);
    expect(notes).toEqual([
      { idMaquina: 'caja-1', primeraVez: t0, ultimaVez: t1 },
      { idMaquina: 'caja-2', primeraVez: t1, ultimaVez: t1 },
    ]);
    expect(dbRows(env.t.engine.context.db, 'SELECT * FROM device_series WHERE nif = ?', E.nif)).toEqual([]);
    const view = await devicesView(env, entorno, E.nif);
    expect(view).toMatchObject({ faseAltaCapacidad: 'preparacion', modoCadena: 'unica' });
    expect(view.idsMaquinaVistos.map((v) => [v.idMaquina, v.primeraVez, v.ultimaVez, v.registrado])).toEqual([
      ['caja-1', t0, t1, false],
      ['caja-2', t1, t1, false],
    ]);
  });

  it('a registered device changes nothing before activa: its invoices stay on the issuer chain', async () => {
    await registerDevice(env, entorno, E.nif, `reg-${entorno}`);
    const a = await crearOk(entorno, ticket(E, `PR-${entorno}`, '10', `reg-${entorno}`));
    expect(chainKeysOfInvoice(env, a.idFactura)).toEqual([verifactuChainKey(entorno, E.nif)]);
    expect(deviceRow(entorno, E.nif, `reg-${entorno}`)?.numeroInstalacion).toBeNull();
  });

  it('a refused request notes nothing (the note is part of the issuing transaction)', async () => {
    await crearOk(entorno, ticket(E, `PR-${entorno}`, '20'));
    const conflict = { ...ticket(E, `PR-${entorno}`, '20', 'caja-refusada'), totales: { cuotaTotal: '4.20', importeTotal: '24.20' } };
    conflict.detalleDesglose = [{ ...conflict.detalleDesglose[0]!, baseImponible: '20.00', cuotaRepercutida: '4.20' }];
    await expectRefused(entorno, conflict, 409, 'INVOICE_IDENTITY_CONFLICT');
    expect(dbRows(env.t.engine.context.db, "SELECT * FROM device_observations WHERE idMaquina = 'caja-refusada'")).toEqual([]);
  });
});

describe.each(ENTORNOS)('activa (%s): idMaquina routes to its device chain; without it, __SHARD0__ on the issuer chain', (entorno) => {
  const E = VF.activa;
  const A = `caja-A-${entorno}`;
  const B = `caja-B-${entorno}`;
  beforeAll(async () => {
    await registerDevice(env, entorno, E.nif, A);
    await registerDevice(env, entorno, E.nif, B);
  });

  it('each device gets its own chain and numeroInstalacion (assigned with its first invoice, in SistemaInformatico); centralized keeps the install one', async () => {
    expect(deviceRow(entorno, E.nif, A)?.numeroInstalacion).toBeNull();
    const a1 = await crearOk(entorno, ticket(E, `A-${entorno}`, '1', A));
    const numeroA = deviceRow(entorno, E.nif, A)?.numeroInstalacion;
    expect(numeroA).toMatch(/^inst_/);
    const b1 = await crearOk(entorno, ticket(E, `B-${entorno}`, '1', B));
    const c1 = await crearOk(entorno, ticket(E, `C-${entorno}`, '1'));
    const a2 = await crearOk(entorno, ticket(E, `A-${entorno}`, '2', A));
    const b2 = await crearOk(entorno, ticket(E, `B-${entorno}`, '2', B));
    const numeroB = deviceRow(entorno, E.nif, B)?.numeroInstalacion;
    expect(deviceRow(entorno, E.nif, A)?.numeroInstalacion).toBe(numeroA);
    expect(new Set([numeroA, numeroB, installNumber()]).size).toBe(3);
    const view = await devicesView(env, entorno, E.nif);
    expect(view.dispositivos.find((d) => d.idMaquina === A)?.numeroInstalacion).toBe(numeroA);

    const chainA = chainOf(env, verifactuChainKey(entorno, E.nif, A));
    const chainB = chainOf(env, verifactuChainKey(entorno, E.nif, B));
    const central = chainOf(env, verifactuChainKey(entorno, E.nif));
    expect(chainA.map((r) => r.invoiceId)).toEqual([a1.idFactura, a2.idFactura]);
    expect(chainB.map((r) => r.invoiceId)).toEqual([b1.idFactura, b2.idFactura]);
    expect(central.map((r) => r.invoiceId)).toEqual([c1.idFactura]);
    for (const chain of [chainA, chainB, central]) expect(expectLinked(chain)).toBe(true);
    expect(chainA.map((r) => numeroInstalacionIn(r.xml))).toEqual([numeroA, numeroA]);
    expect(chainB.map((r) => numeroInstalacionIn(r.xml))).toEqual([numeroB, numeroB]);
    expect(numeroInstalacionIn(central[0]!.xml)).toBe(installNumber());
    expect([owner(entorno, E.nif, `A-${entorno}`), owner(entorno, E.nif, `B-${entorno}`), owner(entorno, E.nif, `C-${entorno}`)]).toEqual([A, B, '__SHARD0__']);

    // AEAT checks each installation's chain on its own and accepts every record.
    await env.fileEverything();
    const estados = dbRows<{ estadoEnvioFinal: string }>(env.t.engine.context.db, 'SELECT estadoEnvioFinal FROM registros WHERE entorno = ? AND nifEmisor = ?', entorno, E.nif);
    expect(new Set(estados.map((r) => r.estadoEnvioFinal))).toEqual(new Set(['registrada']));
    expect(aeatOf(entorno).ledger.chainIntact(E.nif)).toBe(true);
    const heads = aeatOf(entorno).ledger.chainHeads(E.nif);
    for (const numero of [numeroA, numeroB]) expect(heads.find((h) => h.sistema.endsWith(`|${numero}`))?.length).toBe(2);
    // The issuer's chains share its queue: one submission carried the three chains, in commit order.
    const presented = aeatOf(entorno).ledger.presentations().filter((p) => p.obligado === E.nif);
    expect(new Set(presented.map((p) => p.submissionId)).size).toBe(1);
    expect(presented.map((p) => p.key.split('|')[1])).toEqual([`A-${entorno}1`, `B-${entorno}1`, `C-${entorno}1`, `A-${entorno}2`, `B-${entorno}2`]);
  });

  it('an unknown idMaquina, or one registered only in the other environment: 409 MACHINE_NOT_REGISTERED, nothing stored', async () => {
    await expectRefused(entorno, ticket(E, `A-${entorno}`, '90', 'caja-desconocida'), 409, 'MACHINE_NOT_REGISTERED');
    const other = entorno === 'test' ? 'live' : 'test';
    await expectRefused(entorno, ticket(E, `X-${entorno}`, '1', `caja-A-${other}`), 409, 'MACHINE_NOT_REGISTERED');
  });

  it('a deactivated device: 409 MACHINE_NOT_REGISTERED; reactivated, its chain and installation resume', async () => {
    const D = `caja-D-${entorno}`;
    await registerDevice(env, entorno, E.nif, D);
    await crearOk(entorno, ticket(E, `D-${entorno}`, '1', D));
    const numero = deviceRow(entorno, E.nif, D)?.numeroInstalacion;
    await deactivateDevice(env, entorno, E.nif, D);
    await expectRefused(entorno, ticket(E, `D-${entorno}`, '2', D), 409, 'MACHINE_NOT_REGISTERED');
    await registerDevice(env, entorno, E.nif, D);
    await crearOk(entorno, ticket(E, `D-${entorno}`, '2', D));
    const chain = chainOf(env, verifactuChainKey(entorno, E.nif, D));
    expect(chain).toHaveLength(2);
    expect(expectLinked(chain)).toBe(true);
    expect(chain.map((r) => numeroInstalacionIn(r.xml))).toEqual([numero, numero]);
  });

  describe('Series ownership', () => {
    it('the first invoice claims the series for ever: another device gets 409 SERIE_OWNED_BY_OTHER_MACHINE', async () => {
      await crearOk(entorno, ticket(E, `S1-${entorno}`, '1', A));
      const body = await expectRefused(entorno, ticket(E, `S1-${entorno}`, '2', B), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
      expect(body.message).toContain(A);
      expect(owner(entorno, E.nif, `S1-${entorno}`)).toBe(A);
    });

    it('a device that took a series first makes every later centralized invoice on it a permanent rejection', async () => {
      await crearOk(entorno, ticket(E, `S2-${entorno}`, '1', A));
      await expectRefused(entorno, ticket(E, `S2-${entorno}`, '2'), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
      await expectRefused(entorno, ticket(E, `S2-${entorno}`, '2'), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
    });

    it('a series the centralized flow used first belongs to __SHARD0__: devices are refused', async () => {
      await crearOk(entorno, ticket(E, `S3-${entorno}`, '1'));
      await expectRefused(entorno, ticket(E, `S3-${entorno}`, '2', A), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
      await crearOk(entorno, ticket(E, `S3-${entorno}`, '2'));
    });

    it('a series reserved for __SHARD0__ is used by centralized invoices and refused to devices', async () => {
      await reserveSeries(env, entorno, E.nif, [`FC-${entorno}`]);
      await expectRefused(entorno, ticket(E, `FC-${entorno}`, '1', A), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
      const c = await crearOk(entorno, ticket(E, `FC-${entorno}`, '1'));
      expect(chainKeysOfInvoice(env, c.idFactura)).toEqual([verifactuChainKey(entorno, E.nif)]);
    });

    it('the invoice without series is a series too: claimed by its first writer', async () => {
      const sinSerie = (numero: string, idMaquina?: string) => {
        const f = ticket(E, 'x', numero, idMaquina);
        delete (f.cabecera as { serie?: string }).serie;
        return f;
      };
      await crearOk(entorno, sinSerie(`SS-${entorno}-1`, B));
      await expectRefused(entorno, sinSerie(`SS-${entorno}-2`), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
      expect(owner(entorno, E.nif, '')).toBe(B);
    });
  });

  describe('Cancellations claim nothing and follow the chain of the invoice they cancel; corrections too', () => {
    it('anular of a device invoice, sent without idMaquina, is chained on that device chain and claims nothing', async () => {
      const a = await crearOk(entorno, ticket(E, `AN-${entorno}`, '1', A));
      const seriesBefore = counts(env).series;
      const res = await env.t.billing('POST', '/v1/verifactu/anular', {
        key: keyOf(env, entorno),
        body: { version: '1.0', facturaAnulada: { nifEmisor: E.nif, serie: `AN-${entorno}`, numero: '1', fechaExpedicion: '02-03-2026' } },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(chainKeysOfInvoice(env, a.idFactura)).toEqual([verifactuChainKey(entorno, E.nif, A)]);
      const chainA = chainOf(env, verifactuChainKey(entorno, E.nif, A));
      expect(chainA.at(-1)).toMatchObject({ tipo: 'anulacion', invoiceId: a.idFactura });
      expect(expectLinked(chainA)).toBe(true);
      expect(numeroInstalacionIn(chainA.at(-1)!.xml)).toBe(deviceRow(entorno, E.nif, A)?.numeroInstalacion);
      expect(counts(env).series).toBe(seriesBefore);
    });

    it('anular sin registro previo on an unclaimed series claims nothing', async () => {
      const res = await env.t.billing('POST', '/v1/verifactu/anular', {
        key: keyOf(env, entorno),
        body: { version: '1.0', sinRegistroPrevio: true, facturaAnulada: { nifEmisor: E.nif, serie: `ANX-${entorno}`, numero: '1', fechaExpedicion: '02-03-2026' }, idMaquina: B },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(owner(entorno, E.nif, `ANX-${entorno}`)).toBeUndefined();
      expect(chainOf(env, verifactuChainKey(entorno, E.nif, B)).at(-1)).toMatchObject({ tipo: 'anulacion' });
    });

    it('anular with an unregistered idMaquina: 409 MACHINE_NOT_REGISTERED', async () => {
      await crearOk(entorno, ticket(E, `AN-${entorno}`, '5', A));
      const res = await env.t.billing('POST', '/v1/verifactu/anular', {
        key: keyOf(env, entorno),
        body: { version: '1.0', facturaAnulada: { nifEmisor: E.nif, serie: `AN-${entorno}`, numero: '5', fechaExpedicion: '02-03-2026' }, idMaquina: 'caja-fantasma' },
      });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('MACHINE_NOT_REGISTERED');
    });

    it('subsanar stays on the chain of the invoice it corrects, whatever writer sends it', async () => {
      const a = await crearOk(entorno, ticket(E, `SU-${entorno}`, '1', A));
      const corrected = { ...ticket(E, `SU-${entorno}`, '1'), subsanacion: true };
      corrected.cabecera = { ...corrected.cabecera, descripcion: 'Corregida' };
      const res = await env.t.billing('PUT', '/v1/verifactu/subsanar', { key: keyOf(env, entorno), body: corrected });
      expect(res.statusCode, res.body).toBe(200);
      const chainA = chainOf(env, verifactuChainKey(entorno, E.nif, A));
      expect(chainA.at(-1)).toMatchObject({ tipo: 'subsanacion', invoiceId: a.idFactura });
      expect(chainKeysOfInvoice(env, a.idFactura)).toEqual([verifactuChainKey(entorno, E.nif, A)]);
      expect(expectLinked(chainA)).toBe(true);
    });
  });

  it('a replay (same identity) returns the stored answer whatever idMaquina it carries', async () => {
    const first = await crearOk(entorno, ticket(E, `RP-${entorno}`, '1', A));
    const before = counts(env);
    for (const idMaquina of [B, undefined, 'caja-desconocida']) {
      const again = await crearOk(entorno, ticket(E, `RP-${entorno}`, '1', idMaquina));
      expect(again).toMatchObject({ idFactura: first.idFactura, huella: first.huella, yaExistente: true });
    }
    expect(counts(env)).toEqual(before);
  });

  it('a correction replayed by another writer (or none) is the same correction: the stored answer, nothing new', async () => {
    await crearOk(entorno, ticket(E, `RS-${entorno}`, '1', A));
    const corrected = (idMaquina?: string) => {
      const f = { ...ticket(E, `RS-${entorno}`, '1', idMaquina), subsanacion: true };
      f.cabecera = { ...f.cabecera, descripcion: 'Corregida' };
      return f;
    };
    const subsanar = (body: unknown) => env.t.billing('PUT', '/v1/verifactu/subsanar', { key: keyOf(env, entorno), body });
    const first = await subsanar(corrected(A));
    expect(first.statusCode, first.body).toBe(200);
    const before = counts(env);
    for (const idMaquina of [B, undefined, 'caja-desconocida']) {
      const again = await subsanar(corrected(idMaquina));
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toMatchObject({ idFactura: first.json().idFactura, huella: first.json().huella, yaExistente: true });
    }
    expect(counts(env)).toEqual(before);
  });
});

describe('SHARDING_UNAVAILABLE: the device configuration cannot be read → 503, never routed unverified', () => {
  it('with the phase table unreadable, crear and anular answer 503 and store nothing; once readable, issuing resumes', async () => {
    const E = VF.activa;
    const db = env.t.engine.context.db;
    renameTable(db, 'issuer_phases', 'issuer_phases_fuera');
    try {
      const res = await expectRefused('test', ticket(E, 'SU-503', '1', 'caja-A-test'), 503, 'SHARDING_UNAVAILABLE');
      expect(res.message).toBeTruthy();
      await expectRefused('test', ticket(VF.no_contratada, 'SU-503', '1'), 503, 'SHARDING_UNAVAILABLE');
    } finally {
      renameTable(db, 'issuer_phases_fuera', 'issuer_phases');
    }
    await crearOk('test', ticket(E, 'SU-503', '1', 'caja-A-test'));
  });

  it('with the device registry unreadable in activa → 503', async () => {
    const db = env.t.engine.context.db;
    renameTable(db, 'devices', 'devices_fuera');
    try {
      await expectRefusedAny(ticket(VF.activa, 'SU-503', '2', 'caja-A-test'));
    } finally {
      renameTable(db, 'devices_fuera', 'devices');
    }
  });
  async function expectRefusedAny(body: unknown) {
    const res = await crear('test', body);
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('SHARDING_UNAVAILABLE');
  }
});

describe('Phase changes apply to the next request', () => {
  it('preparacion → activa: the issuer chain becomes the centralized one, devices start their own', async () => {
    const E = VF.preparacion;
    const before = chainOf(env, verifactuChainKey('test', E.nif)).length;
    setPhase(env, E.nif, 'activa');
    await crearOk('test', ticket(E, 'PA-C', '1'));
    await crearOk('test', ticket(E, 'PA-D', '1', 'reg-test'));
    expect(chainOf(env, verifactuChainKey('test', E.nif))).toHaveLength(before + 1);
    expect(expectLinked(chainOf(env, verifactuChainKey('test', E.nif)))).toBe(true);
    expect(chainOf(env, verifactuChainKey('test', E.nif, 'reg-test'))).toHaveLength(1);
    await env.fileEverything();
    expect(env.emu.aeat.ledger.chainIntact(E.nif)).toBe(true);
  });
});
