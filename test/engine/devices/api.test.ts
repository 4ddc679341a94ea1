import { beforeEach, describe, expect, it } from 'vitest';
import { ticketbaiDeviceChainKey } from '../../../engine/src/devices/chain-keys';
import { anEmpresa, crear, expectError, type ClientsEngine } from '../clients/helpers';
import { makeDevicesEngine, OWN, type DevicesEngine } from './helpers';
import { withoutForeignKeys } from '../../support/db-faults';

let t: DevicesEngine;
beforeEach(async (ctx) => {
  t = await makeDevicesEngine();
  ctx.onTestFinished(() => t.close());
});

const ENTORNOS = ['test', 'live'] as const;
const ctx = () => t.engine.context;
const register = (idMaquina: unknown, entorno: 'test' | 'live' = 'test', etiqueta?: unknown) =>
  t.dev('POST', '', { key: t.key(entorno), body: { idMaquina, ...(etiqueta !== undefined ? { etiqueta } : {}) } });
const deactivate = (idMaquina: string, entorno: 'test' | 'live' = 'test') => t.dev('DELETE', `/${idMaquina}`, { key: t.key(entorno) });
const reserve = (series: unknown, entorno: 'test' | 'live' = 'test') => t.dev('POST', '/series-centralizadas', { key: t.key(entorno), body: { series } });
const release = (encoded: string, entorno: 'test' | 'live' = 'test') => t.dev('DELETE', `/series-centralizadas/${encoded}`, { key: t.key(entorno) });

describe('GET /v1/clientes/{nif}/dispositivos: always 200, registries per environment', () => {
  it.each(ENTORNOS)('an issuer without the mode (%s): no_contratada, unica and empty lists — a state, not an error', async (entorno) => {
    expect(await t.status(entorno)).toEqual({
      entorno,
      nif: OWN,
      modoCadena: 'unica',
      faseAltaCapacidad: 'no_contratada',
      dispositivos: [],
      series: [],
      idsMaquinaVistos: [],
    });
  });

  it('the phase is one value for TEST and LIVE; observandoDesde only in preparacion', async () => {
    t.clock.set('2026-11-21T09:00:00.000Z');
    expect((await t.setFase('preparacion')).statusCode).toBe(200);
    for (const entorno of ENTORNOS) {
      expect(await t.status(entorno)).toMatchObject({ faseAltaCapacidad: 'preparacion', modoCadena: 'unica', observandoDesde: '2026-11-21T09:00:00.000Z' });
    }
    await t.setFase('activa');
    for (const entorno of ENTORNOS) {
      const s = await t.status(entorno);
      expect(s).toMatchObject({ faseAltaCapacidad: 'activa', modoCadena: 'por_dispositivo' });
      expect(s).not.toHaveProperty('observandoDesde');
    }
  });

  it('a device registered in TEST is not in LIVE', async () => {
    await t.setFase('preparacion');
    expect((await register('CAJA-1', 'test')).statusCode).toBe(201);
    expect((await t.status('test')).dispositivos.map((d) => d.idMaquina)).toEqual(['CAJA-1']);
    expect((await t.status('live')).dispositivos).toEqual([]);
  });

  it('the client detail and list show the same phase', async () => {
    await t.setFase('activa');
    const detail = (await t.manage('GET', `/v1/clientes/${OWN}`, { key: t.keys.live })).json() as { cliente: Record<string, unknown> };
    expect(detail.cliente).toMatchObject({ modoCadena: 'por_dispositivo', faseAltaCapacidad: 'activa' });
    const list = (await t.manage('GET', '/v1/clientes')).json() as { clientes: Record<string, unknown>[] };
    expect(list.clientes.find((c) => c.nif === OWN)).toMatchObject({ modoCadena: 'por_dispositivo', faseAltaCapacidad: 'activa' });
  });
});

describe('idsMaquinaVistos: identifiers noted from issuing traffic during the preparation window', () => {
  it('lists the notes since observandoDesde with registrado; none in no_contratada', async () => {
    const store = ctx().deviceStore;
    store.noteObserved('test', OWN, 'ANTES', '2026-11-19T10:00:00.000Z');
    expect((await t.status()).idsMaquinaVistos).toEqual([]);
    t.clock.set('2026-11-20T10:00:00.000Z');
    await t.setFase('preparacion');
    store.noteObserved('test', OWN, 'CAJA-1', '2026-11-20T11:00:00.000Z');
    store.noteObserved('test', OWN, 'CAJA-1', '2026-11-20T12:00:00.000Z');
    store.noteObserved('test', OWN, 'POS-WEB', '2026-11-20T11:30:00.000Z');
    store.noteObserved('live', OWN, 'SOLO-LIVE', '2026-11-20T11:30:00.000Z');
    await register('CAJA-1');
    expect((await t.status()).idsMaquinaVistos).toEqual([
      { idMaquina: 'CAJA-1', primeraVez: '2026-11-20T11:00:00.000Z', ultimaVez: '2026-11-20T12:00:00.000Z', registrado: true },
      { idMaquina: 'POS-WEB', primeraVez: '2026-11-20T11:30:00.000Z', ultimaVez: '2026-11-20T11:30:00.000Z', registrado: false },
    ]);
    expect((await t.status('live')).idsMaquinaVistos.map((o) => o.idMaquina)).toEqual(['SOLO-LIVE']);
  });
});

describe('POST …/dispositivos: register', () => {
  it.each(ENTORNOS)('409 SHARDING_NOT_ENABLED in no_contratada (%s); nothing stored', async (entorno) => {
    expectError(await register('CAJA-1', entorno), 409, 'SHARDING_NOT_ENABLED');
    expect((await t.status(entorno)).dispositivos).toEqual([]);
  });

  for (const fase of ['preparacion', 'activa'] as const) {
    it.each(ENTORNOS)(`${fase}, %s: 201 { message, entorno, dispositivo }; etiqueta '' when none; a second time 409 MACHINE_ALREADY_REGISTERED`, async (entorno) => {
      await t.setFase(fase);
      t.clock.set('2026-11-22T08:00:00.000Z');
      const res = await register('CAJA-1', entorno, 'Caja de la entrada');
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({
        message: expect.any(String),
        entorno,
        dispositivo: { idMaquina: 'CAJA-1', etiqueta: 'Caja de la entrada', creadoEn: '2026-11-22T08:00:00.000Z', activo: true },
      });
      const bare = await register('proc.batch_2', entorno);
      expect(bare.statusCode).toBe(201);
      expect((bare.json() as { dispositivo: { etiqueta: string } }).dispositivo.etiqueta).toBe('');
      // An empty etiqueta is the same as none (spec: "empty string when none was given").
      const empty = await register('POS-4', entorno, '');
      expect(empty.statusCode, empty.body).toBe(201);
      expect((empty.json() as { dispositivo: { etiqueta: string } }).dispositivo.etiqueta).toBe('');
      expectError(await register('CAJA-1', entorno), 409, 'MACHINE_ALREADY_REGISTERED');
      expect((await t.status(entorno)).dispositivos.map((d) => d.idMaquina)).toEqual(['CAJA-1', 'POS-4', 'proc.batch_2']);
    });
  }

  it('400 VALIDATION_ERROR naming idMaquina or etiqueta; nothing stored', async () => {
    await t.setFase('preparacion');
    for (const bad of [undefined, '', 'x'.repeat(65), 'caja 1', 'caja/1', 'cañа', 12]) {
      expectError(await t.dev('POST', '', { body: bad === undefined ? {} : { idMaquina: bad } }), 400, 'VALIDATION_ERROR', 'idMaquina');
    }
    expect((await register('x'.repeat(64))).statusCode).toBe(201);
    for (const bad of ['e'.repeat(121), 'A &amp; B', 7]) expectError(await register('CAJA-2', 'test', bad), 400, 'VALIDATION_ERROR', 'etiqueta');
    expect((await register('CAJA-2', 'test', 'e'.repeat(120))).statusCode).toBe(201);
    expect((await t.status()).dispositivos).toHaveLength(2);
  });

  it('a deactivated identifier is reactivated: 200 reactivado true, the same installation number', async () => {
    await t.setFase('activa');
    await register('CAJA-1', 'test', 'Caja 1');
    ctx().deviceStore.assignNumeroInstalacion('test', OWN, 'CAJA-1', 'inst-caja-1');
    t.clock.set('2026-11-23T08:00:00.000Z');
    await deactivate('CAJA-1');
    t.clock.set('2026-11-24T08:00:00.000Z');
    const res = await register('CAJA-1', 'test', '');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      reactivado: true,
      entorno: 'test',
      dispositivo: { idMaquina: 'CAJA-1', etiqueta: 'Caja 1', activo: true, numeroInstalacion: 'inst-caja-1', reactivadoEn: '2026-11-24T08:00:00.000Z' },
    });
    expect((res.json() as { dispositivo: object }).dispositivo).not.toHaveProperty('dadoDeBajaEn');
  });
});

describe('DELETE …/dispositivos/{idMaquina}: deactivate', () => {
  it.each(ENTORNOS)('%s: 200, activo false, dadoDeBajaEn; idempotent keeping the first date; history and series stay', async (entorno) => {
    await t.setFase('activa');
    await register('CAJA-1', entorno);
    ctx().deviceStore.claimSeries(entorno, OWN, 'C1', 'CAJA-1', '2026-11-20T10:00:00.000Z');
    t.clock.set('2026-11-22T10:00:00.000Z');
    const first = await deactivate('CAJA-1', entorno);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ entorno, dispositivo: { idMaquina: 'CAJA-1', activo: false, dadoDeBajaEn: '2026-11-22T10:00:00.000Z' } });
    t.clock.set('2026-11-23T10:00:00.000Z');
    const again = await deactivate('CAJA-1', entorno);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ dispositivo: { dadoDeBajaEn: '2026-11-22T10:00:00.000Z' } });
    const s = await t.status(entorno);
    expect(s.dispositivos).toEqual([expect.objectContaining({ idMaquina: 'CAJA-1', activo: false })]);
    expect(s.series).toEqual([{ serie: 'C1', idMaquinaPropietaria: 'CAJA-1', reclamadaEn: '2026-11-20T10:00:00.000Z' }]);
  });

  it('404 MACHINE_NOT_FOUND for an identifier unknown in that environment; 400 for a malformed one', async () => {
    await t.setFase('preparacion');
    await register('CAJA-1', 'test');
    expectError(await deactivate('NADIE'), 404, 'MACHINE_NOT_FOUND');
    expectError(await deactivate('CAJA-1', 'live'), 404, 'MACHINE_NOT_FOUND');
    expectError(await t.dev('DELETE', `/${'x'.repeat(65)}`), 400, 'VALIDATION_ERROR', 'idMaquina');
  });

  it('409 SHARDING_NOT_ENABLED in no_contratada', async () => {
    expectError(await deactivate('CAJA-1'), 409, 'SHARDING_NOT_ENABLED');
  });
});

describe('POST …/dispositivos/promover: TEST → LIVE', () => {
  it('copies every active TEST device (identifier and label only), with either key; idempotent', async () => {
    await t.setFase('preparacion');
    await register('CAJA-1', 'test', 'Caja 1');
    await register('CAJA-2', 'test');
    await register('VIEJA', 'test');
    await deactivate('VIEJA');
    ctx().deviceStore.assignNumeroInstalacion('test', OWN, 'CAJA-1', 'inst-test-1');
    const res = await t.dev('POST', '/promover', { key: t.keys.live });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String), origen: 'test', entorno: 'live', creados: ['CAJA-1', 'CAJA-2'], omitidos: [] });
    const live = (await t.status('live')).dispositivos;
    expect(live.map((d) => [d.idMaquina, d.etiqueta, d.activo])).toEqual([
      ['CAJA-1', 'Caja 1', true],
      ['CAJA-2', '', true],
    ]);
    expect(live[0]).not.toHaveProperty('numeroInstalacion');
    const again = await t.dev('POST', '/promover', { key: t.keys.test });
    expect(again.json()).toMatchObject({ creados: [], omitidos: [{ idMaquina: 'CAJA-1', motivo: 'ya_registrado' }, { idMaquina: 'CAJA-2', motivo: 'ya_registrado' }] });
  });

  it('idsMaquina: no_existe, dado_de_baja, ya_registrado; a device deactivated in LIVE is not reactivated', async () => {
    await t.setFase('activa');
    await register('CAJA-1', 'test');
    await register('CAJA-2', 'test');
    await register('BAJA', 'test');
    await deactivate('BAJA');
    await register('CAJA-2', 'live');
    await deactivate('CAJA-2', 'live');
    const res = await t.dev('POST', '/promover', { body: { idsMaquina: ['CAJA-1', 'NADIE', 'BAJA', 'CAJA-2'] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      creados: ['CAJA-1'],
      omitidos: [
        { idMaquina: 'NADIE', motivo: 'no_existe' },
        { idMaquina: 'BAJA', motivo: 'dado_de_baja' },
        { idMaquina: 'CAJA-2', motivo: 'ya_registrado' },
      ],
    });
    expect((await t.status('live')).dispositivos.find((d) => d.idMaquina === 'CAJA-2')?.activo).toBe(false);
    expectError(await t.dev('POST', '/promover', { body: { idsMaquina: ['mal id'] } }), 400, 'VALIDATION_ERROR', 'idsMaquina[0]');
  });

  it('409 CLIENT_NOT_IN_LIVE when the issuer does not exist in LIVE; 409 SHARDING_NOT_ENABLED in no_contratada', async () => {
    expectError(await t.dev('POST', '/promover'), 409, 'SHARDING_NOT_ENABLED');
    expect((await crear(t as ClientsEngine, anEmpresa(), t.keys.test)).statusCode).toBe(201);
    await t.setFase('preparacion', 'B48123459');
    const res = await t.manage('POST', '/v1/clientes/B48123459/dispositivos/promover');
    expectError(res, 409, 'CLIENT_NOT_IN_LIVE');
    // With the LIVE key too ("works with the key of either environment"), not a 404 of LIVE's lookup.
    expectError(await t.manage('POST', '/v1/clientes/B48123459/dispositivos/promover', { key: t.keys.live }), 409, 'CLIENT_NOT_IN_LIVE');
  });
});

describe('POST …/dispositivos/solicitar-activacion', () => {
  it('in preparacion: solicitadoEn; the first call counts; the notice changes nothing by itself', async () => {
    await t.setFase('preparacion');
    t.clock.set('2026-11-22T10:00:00.000Z');
    const first = await t.dev('POST', '/solicitar-activacion', { key: t.keys.live });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ message: expect.any(String), entorno: 'live', solicitadoEn: '2026-11-22T10:00:00.000Z' });
    t.clock.set('2026-11-23T10:00:00.000Z');
    expect((await t.dev('POST', '/solicitar-activacion')).json()).toMatchObject({ entorno: 'test', solicitadoEn: '2026-11-22T10:00:00.000Z' });
    expect(await t.status()).toMatchObject({ faseAltaCapacidad: 'preparacion', activacionSolicitadaEn: '2026-11-22T10:00:00.000Z' });
  });

  it.each(['no_contratada', 'activa'] as const)('409 NOT_IN_PREPARATION in %s', async (fase) => {
    await t.setFase(fase);
    expectError(await t.dev('POST', '/solicitar-activacion'), 409, 'NOT_IN_PREPARATION');
    expect(await t.status()).not.toHaveProperty('activacionSolicitadaEn');
  });
});

describe('POST …/series-centralizadas: reserve for __SHARD0__', () => {
  for (const fase of ['preparacion', 'activa'] as const) {
    it.each(ENTORNOS)(`${fase}, %s: reservadas (new and already centralized), omitidas for a device's series; idempotent`, async (entorno) => {
      await t.setFase(fase);
      t.clock.set('2026-11-22T10:00:00.000Z');
      ctx().deviceStore.claimSeries(entorno, OWN, 'TD', 'CAJA-1', '2026-11-21T10:00:00.000Z');
      const res = await reserve(['FC', 'FR', 'TD', 'FC'], entorno);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({
        message: expect.any(String),
        entorno,
        reservadas: ['FC', 'FR'],
        omitidas: [{ serie: 'TD', motivo: 'propiedad_de_dispositivo', idMaquina: 'CAJA-1' }],
      });
      t.clock.set('2026-11-23T10:00:00.000Z');
      expect((await reserve(['FR', 'A/2026'], entorno)).json()).toMatchObject({ reservadas: ['FR', 'A/2026'], omitidas: [] });
      const s = await t.status(entorno);
      expect(s.series).toEqual([
        { serie: 'TD', idMaquinaPropietaria: 'CAJA-1', reclamadaEn: '2026-11-21T10:00:00.000Z' },
        { serie: 'FC', idMaquinaPropietaria: '__SHARD0__', reclamadaEn: '2026-11-22T10:00:00.000Z' },
        { serie: 'FR', idMaquinaPropietaria: '__SHARD0__', reclamadaEn: '2026-11-22T10:00:00.000Z' },
        { serie: 'A/2026', idMaquinaPropietaria: '__SHARD0__', reclamadaEn: '2026-11-23T10:00:00.000Z' },
      ]);
    });
  }

  it('400 VALIDATION_ERROR naming series: 1 to 100 entries, up to 60 printable ASCII, no leading space, not empty', async () => {
    await t.setFase('preparacion');
    expectError(await reserve([]), 400, 'VALIDATION_ERROR', 'series');
    expectError(await reserve(Array.from({ length: 101 }, (_, i) => `S${i}`)), 400, 'VALIDATION_ERROR', 'series');
    expectError(await reserve('FC'), 400, 'VALIDATION_ERROR', 'series');
    expectError(await t.dev('POST', '/series-centralizadas', { body: {} }), 400, 'VALIDATION_ERROR', 'series');
    for (const bad of ['', ' FC', 'S'.repeat(61), 'SEÑA', 'A\tB', 3]) expectError(await reserve(['OK', bad]), 400, 'VALIDATION_ERROR', 'series[1]');
    expect((await t.status()).series).toEqual([]);
    expect((await reserve(Array.from({ length: 100 }, (_, i) => `S${i}`))).statusCode).toBe(200);
    expect((await reserve(['S'.repeat(60), 'F C', '~!'])).json()).toMatchObject({ reservadas: ['S'.repeat(60), 'F C', '~!'] });
  });

  it('409 SHARDING_NOT_ENABLED in no_contratada', async () => {
    expectError(await reserve(['FC']), 409, 'SHARDING_NOT_ENABLED');
  });
});

describe('DELETE …/series-centralizadas/{serie}: release (preparacion only)', () => {
  it.each(ENTORNOS)('%s: a reservation is released; the series is URL-encoded in the path', async (entorno) => {
    await t.setFase('preparacion');
    await reserve(['A/2026', 'FC'], entorno);
    const res = await release('A%2F2026', entorno);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ message: expect.any(String), entorno, serie: 'A/2026' });
    expect((await t.status(entorno)).series.map((s) => s.serie)).toEqual(['FC']);
    expectError(await release('A%2F2026', entorno), 404, 'SERIE_NOT_RESERVED');
  });

  it('404 SERIE_NOT_RESERVED; 409 SERIE_OWNED_BY_OTHER_MACHINE for a device’s series', async () => {
    await t.setFase('preparacion');
    expectError(await release('NUNCA'), 404, 'SERIE_NOT_RESERVED');
    ctx().deviceStore.claimSeries('test', OWN, 'TD', 'CAJA-1', '2026-11-21T10:00:00.000Z');
    expectError(await release('TD'), 409, 'SERIE_OWNED_BY_OTHER_MACHINE');
    expect((await t.status()).series).toHaveLength(1);
  });

  it('409 RESERVATION_LOCKED in activa (permanent); 409 SHARDING_NOT_ENABLED in no_contratada', async () => {
    expectError(await release('FC'), 409, 'SHARDING_NOT_ENABLED');
    await t.setFase('preparacion');
    await reserve(['FC']);
    await t.setFase('activa');
    expectError(await release('FC'), 409, 'RESERVATION_LOCKED');
    expect((await t.status()).series.map((s) => s.serie)).toEqual(['FC']);
  });
});

describe('403 FORBIDDEN for another account’s issuer; 404 NOT_FOUND for an issuer no account holds', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', ''],
    ['POST', '', { idMaquina: 'CAJA-9' }],
    ['DELETE', '/CAJA-1'],
    ['POST', '/promover'],
    ['POST', '/solicitar-activacion'],
    ['POST', '/series-centralizadas', { series: ['FC'] }],
    ['DELETE', '/series-centralizadas/FC'],
  ];

  it('every device route, in both environments, changes nothing', async () => {
    await t.setFase('preparacion');
    await register('CAJA-1');
    const other = t.otherAccount();
    for (const entorno of ENTORNOS) {
      for (const [method, path, body] of routes) {
        const res = await t.dev(method, path, { key: other[entorno], ...(body !== undefined ? { body } : {}) });
        expectError(res, 403, 'FORBIDDEN');
      }
    }
    for (const [method, path, body] of routes) {
      const res = await t.manage(method, `/v1/clientes/44444444A/dispositivos${path}`, body !== undefined ? { body } : {});
      expectError(res, 404, 'NOT_FOUND');
    }
    expect((await t.status()).dispositivos).toHaveLength(1);
    expect((await t.status()).series).toEqual([]);
  });

  it('the client routes answer 403 for another account’s issuer too (404 for nobody’s)', async () => {
    const other = t.otherAccount();
    expectError(await t.manage('GET', `/v1/clientes/${OWN}`, { key: other.test }), 403, 'FORBIDDEN');
    expectError(await t.manage('PATCH', `/v1/clientes/${OWN}`, { key: other.live, body: { portalHabilitado: true } }), 403, 'FORBIDDEN');
    expectError(await t.manage('PATCH', `/v1/clientes/${OWN}/estado`, { key: other.test, body: { estado: 'inactivo' } }), 403, 'FORBIDDEN');
    expectError(await t.manage('GET', `/v1/clientes/${OWN}/representacion/estado`, { key: other.test }), 403, 'FORBIDDEN');
    expectError(await t.manage('GET', '/v1/clientes/44444444A'), 404, 'NOT_FOUND');
  });
});

describe('Phases are set by the service team (panel API): rules', () => {
  it('preparacion → activa with or without the activation notice; entering preparacion sets observandoDesde', async () => {
    t.clock.set('2026-11-21T09:00:00.000Z');
    expect((await t.setFase('preparacion')).json()).toEqual({ nif: OWN, faseAltaCapacidad: 'preparacion', modoCadena: 'unica', observandoDesde: '2026-11-21T09:00:00.000Z' });
    expect((await t.setFase('activa')).json()).toEqual({ nif: OWN, faseAltaCapacidad: 'activa', modoCadena: 'por_dispositivo' });
    await t.setFase('preparacion');
    await t.dev('POST', '/solicitar-activacion');
    const res = await t.setFase('activa');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ faseAltaCapacidad: 'activa', activacionSolicitadaEn: expect.any(String) });
  });

  it('leaving activa is refused (409 PHASE_LOCKED) once any device has a chain, in either environment or regime', async () => {
    await t.setFase('activa');
    // A device id longer than the 30 characters TicketBAI declares: its chain is keyed by those 30.
    const largo = `CAJA-1-${'x'.repeat(40)}`;
    await register(largo, 'live');
    await register('CAJA-2', 'test');
    // Registered devices without invoices: the move back is allowed.
    expect((await t.setFase('preparacion')).statusCode).toBe(200);
    await t.setFase('activa');
    // The head of that device's TicketBAI chain in LIVE, as issuing writes it (its record is not needed here).
    const db = ctx().db;
    withoutForeignKeys(db, () =>
      db.statement('INSERT INTO chains (chainKey, length, lastRegistroId, lastLink) VALUES (?, 1, ?, ?)').run(ticketbaiDeviceChainKey('live', OWN, largo), 'reg-1', '{}'),
    );
    expectError(await t.setFase('preparacion'), 409, 'PHASE_LOCKED');
    expectError(await t.setFase('no_contratada'), 409, 'PHASE_LOCKED');
    expect((await t.setFase('activa')).statusCode).toBe(200);
    expect((await t.status()).faseAltaCapacidad).toBe('activa');
  });

  it('a VeriFactu installation number counts as a chain', async () => {
    await t.setFase('activa');
    await register('CAJA-2', 'test');
    ctx().deviceStore.assignNumeroInstalacion('test', OWN, 'CAJA-2', 'inst-2');
    expectError(await t.setFase('no_contratada'), 409, 'PHASE_LOCKED');
  });

  it('400 for an unknown phase, 404 for an issuer the account does not hold; no client endpoint changes it', async () => {
    expectError(await t.setFase('total' as never), 400, 'VALIDATION_ERROR', 'faseAltaCapacidad');
    expectError(await t.setFase('activa', '44444444A'), 404, 'NOT_FOUND');
    expectError(await t.manage('PATCH', `/v1/clientes/${OWN}`, { body: { faseAltaCapacidad: 'activa' } }), 400, 'VALIDATION_ERROR');
    expect((await t.status()).faseAltaCapacidad).toBe('no_contratada');
  });
});

describe('Two till identities against one engine', () => {
  it('both register and both are listed, each with its label', async () => {
    await t.setFase('activa');
    const a = await register('TPV-AAAAAAAAAAAA', 'test', 'caja-principal');
    const b = await register('TPV-BBBBBBBBBBBB', 'test', 'caja-terraza');
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect((await t.status()).dispositivos.map((d) => [d.idMaquina, d.etiqueta, d.activo])).toEqual([
      ['TPV-AAAAAAAAAAAA', 'caja-principal', true],
      ['TPV-BBBBBBBBBBBB', 'caja-terraza', true],
    ]);
  });
});


describe('OpenAPI documents every device route', () => {
  it('on the management API', async () => {
    const doc = (await t.engine.apps.manage.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const base = '/v1/clientes/{nif}/dispositivos';
    expect(Object.keys(doc.paths[base] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths[`${base}/{idMaquina}`] ?? {})).toEqual(['delete']);
    expect(Object.keys(doc.paths[`${base}/promover`] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths[`${base}/solicitar-activacion`] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths[`${base}/series-centralizadas`] ?? {})).toEqual(['post']);
    expect(Object.keys(doc.paths[`${base}/series-centralizadas/{serie}`] ?? {})).toEqual(['delete']);
  });
});
