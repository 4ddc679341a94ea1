import { beforeEach, describe, expect, it } from 'vitest';
import { amountVariants, huellaAlta as emuHuellaAlta, huellaAnulacion as emuHuellaAnulacion } from '../../../engine/emulators/aeat/huella';
import type { BuiltRecord } from './builders';
import { ChainBuilder, buildAlta, buildAnulacion, buildEnvelope, huellaAlta, huellaAnulacion, isoWithOffset } from './builders';
import type { Harness, ParsedRespuesta } from './helpers';
import { DEMO, T0, parseRespuesta, sendBatch, useHarness } from './helpers';

let h: Harness;
let chain: ChainBuilder;

useHarness((harness) => (h = harness));
beforeEach(() => {
  chain = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000));
});

/** Sends one batch (waiting the flow-control time first) and checks the answer against the XSD. */
const send = (...records: Array<BuiltRecord | string>): Promise<ParsedRespuesta> => sendBatch(h, records);

describe('huella (hash) computation', () => {
  it('reproduces the three official examples, in the emulator and in the test builder', () => {
    const h1 = '3C464DAF61ACB827C65FDA19F352A4E3BDC2C640E9E9FC4CC058073F38F12F60';
    const h2 = 'F7B94CFD8924EDFF273501B01EE5153E4CE8F259766F88CF6ACB8935802A2B97';
    const h3 = '177547C0D57AC74748561D054A9CEC14B4C4EA23D1BEFD6F2E69E3A388F90C68';
    const a1 = { emisor: '89890001K', numSerie: '12345678/G33', fecha: '01-01-2024', tipoFactura: 'F1', cuotaTotal: '12.35', importeTotal: '123.45', prevHuella: '', fechaHoraHusoGenRegistro: '2024-01-01T19:20:30+01:00' };
    const a2 = { ...a1, numSerie: '12345679/G34', prevHuella: h1, fechaHoraHusoGenRegistro: '2024-01-01T19:20:35+01:00' };
    const an = { emisor: '89890001K', numSerie: '12345679/G34', fecha: '01-01-2024', prevHuella: h2, fechaHoraHusoGenRegistro: '2024-01-01T19:20:40+01:00' };
    for (const [alta, anul] of [[emuHuellaAlta, emuHuellaAnulacion], [huellaAlta, huellaAnulacion]] as const) {
      expect(alta(a1)).toBe(h1);
      expect(alta(a2)).toBe(h2);
      expect(anul(an)).toBe(h3);
    }
  });

  it('knows the equivalent renderings of an amount', () => {
    expect(amountVariants('123.10').sort()).toEqual(['123.1', '123.10']);
    expect(amountVariants('163').sort()).toEqual(['163', '163.0', '163.00']);
    expect(amountVariants('-5.5').sort()).toEqual(['-5.5', '-5.50']);
  });
});

describe('record verdicts', () => {
  it('duplicate alta: 3000 with RegistroDuplicado carrying the original verdict and IdPeticion', async () => {
    const a = chain.alta();
    await send(a);
    const original = h.emu.ledger.getRecord(a.id);
    const resp = await send(a); // the till resending after a crash
    expect(resp.estadoEnvio).toBe('Incorrecto');
    expect(resp.csv).toBeNull();
    expect(resp.lineas[0]).toMatchObject({
      estado: 'Incorrecto',
      codigo: 3000,
      descripcion: 'Registro de facturación duplicado.',
      duplicado: { idPeticion: original?.idPeticion, estado: 'Correcta', codigo: null },
    });
    expect(original?.idPeticion).toMatch(/^2025030111\d{10}$/);
    // The ledger still holds the original, and counts the arrivals.
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ estado: 'Correcto', registered: true, receivedCount: 2, csv: original?.csv });
    expect(h.emu.ledger.duplicatesReceived()).toEqual([{ key: `${a.id.emisor}|${a.id.numSerie}|${a.id.fecha}`, huella: a.huella, times: 2 }]);
  });

  it('duplicate of a record accepted with errors reports AceptadoConErrores (as the real service spells it) and the original code', async () => {
    const a = chain.alta({ huellaOverride: '0'.repeat(64) });
    const first = await send(a);
    expect(first.lineas[0]).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2000 });
    const resp = await send(a);
    expect(resp.lineas[0]?.duplicado).toEqual({
      idPeticion: h.emu.ledger.getRecord(a.id)?.idPeticion,
      estado: 'AceptadoConErrores',
      codigo: 2000,
      descripcion: 'El cálculo de la huella suministrada es incorrecta.',
    });
  });

  it('duplicate of a cancelled invoice reports Anulada', async () => {
    const a = chain.alta();
    await send(a);
    await send(chain.anulacion(a.id));
    const resp = await send(buildAlta({ ...a.id, prev: chain.last, fechaHoraHusoGenRegistro: isoWithOffset(new Date(T0)) }));
    expect(resp.lineas[0]).toMatchObject({ codigo: 3000, duplicado: { estado: 'Anulada' } });
  });

  it('wrong huella: accepted with errors 2000, stored as accepted', async () => {
    const a = chain.alta({ huellaOverride: 'F'.repeat(64) });
    const resp = await send(a);
    expect(resp.estadoEnvio).toBe('ParcialmenteCorrecto');
    expect(resp.csv).not.toBeNull();
    expect(resp.lineas[0]).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2000 });
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ registered: true, estadoRegistro: 'AceptadaConErrores', huellaCheck: 'mismatch', warnings: [2000] });
  });

  it('a lower-case huella is a wrong huella (2000), a short one is rejected (1262)', async () => {
    const good = chain.alta();
    const lower = chain.alta();
    const ownHuella = (r: BuiltRecord): string => `<sum1:Huella>${r.huella}</sum1:Huella></sum1:RegistroAlta>`;
    const lowerXml = lower.xml.replace(ownHuella(lower), ownHuella({ ...lower, huella: lower.huella.toLowerCase() }));
    const resp = await send(good, lowerXml, chain.alta({ huellaOverride: 'ABC' }));
    expect(resp.lineas.map((l) => [l.estado, l.codigo])).toEqual([
      ['Correcto', null],
      ['AceptadoConErrores', 2000],
      ['Incorrecto', 1262],
    ]);
  });

  it('huella over "123.1" accepted when the XML says "123.10" (AEAT treats them alike)', async () => {
    const fecha = '01-03-2025';
    const gen = isoWithOffset(new Date(T0 - 60_000));
    const huella = huellaAlta({ emisor: DEMO.nif, numSerie: 'V-1', fecha, tipoFactura: 'F2', cuotaTotal: '21.1', importeTotal: '121.1', prevHuella: '', fechaHoraHusoGenRegistro: gen });
    const a = buildAlta({ emisor: DEMO.nif, numSerie: 'V-1', fecha, prev: null, fechaHoraHusoGenRegistro: gen, cuotaTotal: '21.10', importeTotal: '121.10', lines: [{ base: '100.00', tipo: '21', cuota: '21.10' }], huellaOverride: huella });
    const resp = await send(a);
    expect(resp.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(h.emu.ledger.getRecord(a.id)?.huellaCheck).toBe('amount-variant');
  });

  it('anulación of an unknown invoice: 3002; cancelled twice: 3001', async () => {
    const unknown = await send(chain.anulacion({ emisor: DEMO.nif, numSerie: 'NO-EXISTE', fecha: '01-03-2025' }));
    expect(unknown.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 3002, descripcion: 'No existe el registro de facturación.', tipoOperacion: 'Anulacion' });
    const a = chain.alta();
    await send(a);
    const first = await send(chain.anulacion(a.id));
    expect(first.lineas[0]).toMatchObject({ estado: 'Correcto', tipoOperacion: 'Anulacion' });
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ tipo: 'anulacion', estadoRegistro: 'Anulada' });
    const again = await send(chain.anulacion(a.id));
    expect(again.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 3001, descripcion: 'El registro de facturación ya ha sido dado de baja.' });
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ tipo: 'anulacion', registered: true, receivedCount: 3 });
  });

  it('anulación sin registro previo creates a cancelled record; with a record held it is a duplicate', async () => {
    const id = { emisor: DEMO.nif, numSerie: 'NUNCA-ENVIADA', fecha: '01-03-2025' };
    const r1 = await send(chain.anulacion(id, { sinRegistroPrevio: 'S' }));
    expect(r1.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(h.emu.ledger.getRecord(id)).toMatchObject({ estadoRegistro: 'Anulada' });
    const a = chain.alta();
    await send(a);
    const r2 = await send(chain.anulacion(a.id, { sinRegistroPrevio: 'S' }));
    expect(r2.lineas[0]).toMatchObject({ codigo: 3000, duplicado: { estado: 'Correcta' } });
  });

  it('rejected records are stored as rejected, and a later plain alta of that key is accepted', async () => {
    h.emu.faults.set({ rejectNext: { count: 1, codigo: 1104 } });
    const a = chain.alta();
    const r1 = await send(a);
    expect(r1.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 1104, descripcion: 'El valor del campo NumSerieFactura es incorrecto.' });
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ registered: false, estadoRegistro: 'Rechazada', estado: 'Incorrecto', codigo: 1104, csv: null });
    expect(h.emu.ledger.countRecords()).toBe(0);
    const fixed = chain.alta({ numSerie: a.id.numSerie, fecha: a.id.fecha });
    expect((await send(fixed)).lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ registered: true, huella: fixed.huella });
  });

  it('subsanación: S replaces a held record; S on an unknown key is 3002', async () => {
    const a = chain.alta({ huellaOverride: '1'.repeat(64) });
    await send(a);
    const fix = chain.alta({ numSerie: a.id.numSerie, fecha: a.id.fecha, subsanacion: 'S' });
    const r = await send(fix);
    expect(r.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(r.lineas[0]?.tipoOperacion).toBe('Alta');
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ estado: 'Correcto', huella: fix.huella, receivedCount: 2 });
    const orphan = await send(chain.alta({ subsanacion: 'S' }));
    expect(orphan.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 3002 });
  });

  it('subsanación reactivates a cancelled record (OK 5)', async () => {
    const a = chain.alta();
    await send(a);
    await send(chain.anulacion(a.id));
    const r = await send(chain.alta({ numSerie: a.id.numSerie, fecha: a.id.fecha, subsanacion: 'S' }));
    expect(r.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(h.emu.ledger.getRecord(a.id)).toMatchObject({ tipo: 'alta', estadoRegistro: 'Correcta' });
  });

  it('alta after a rejection (Subsanacion=S, RechazoPrevio=X): accepted if nothing is held, 3000 otherwise', async () => {
    h.emu.faults.set({ rejectNext: { count: 1, codigo: 1100 } });
    const a = chain.alta();
    await send(a);
    const retry = chain.alta({ numSerie: a.id.numSerie, fecha: a.id.fecha, subsanacion: 'S', rechazoPrevio: 'X' });
    expect((await send(retry)).lineas[0]).toMatchObject({ estado: 'Correcto' });
    const again = chain.alta({ numSerie: a.id.numSerie, fecha: a.id.fecha, subsanacion: 'S', rechazoPrevio: 'X' });
    expect((await send(again)).lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 3000, duplicado: { estado: 'Correcta' } });
  });

  it('RechazoPrevio without Subsanacion=S is rejected (1153 for X, 1161 for S)', async () => {
    const r = await send(chain.alta({ rechazoPrevio: 'X' }), chain.alta({ rechazoPrevio: 'S' }));
    expect(r.lineas.map((l) => l.codigo)).toEqual([1153, 1161]);
  });

  it('issuer different from ObligadoEmision: 1108', async () => {
    const other = new ChainBuilder('A23456783', new Date(T0 - 3600_000));
    const r = await send(other.alta());
    expect(r.lineas[0]).toMatchObject({ estado: 'Incorrecto', codigo: 1108 });
  });

  it('issue date in the future (1112) or before 28-10-2024 (1152)', async () => {
    const r = await send(chain.alta({ fecha: '02-03-2025' }), chain.alta({ fecha: '27-10-2024' }), chain.alta({ fecha: '31-02-2025' }));
    expect(r.lineas.map((l) => l.codigo)).toEqual([1112, 1152, 1105]);
  });

  it('FechaHoraHusoGenRegistro ahead of the clock beyond the tolerance: 2004, accepted', async () => {
    h.clock.advance(60); // send() advances again: clock = T0 + 120 s at reception
    const ahead = isoWithOffset(new Date(T0 + 120_000 + 121_000));
    const within = isoWithOffset(new Date(T0 + 120_000 + 119_000));
    const r = await send(chain.alta({ fechaHoraHusoGenRegistro: within }), chain.alta({ fechaHoraHusoGenRegistro: ahead }));
    expect(r.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(r.lineas[1]).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2004 });
    expect(r.lineas[1]?.descripcion).toMatch(/^El valor del campo FechaHoraHusoGenRegistro debe ser la fecha actual del sistema de la AEAT, admitiéndose un margen de error de: 120 segundos\.$/);
  });

  it('totals: ImporteTotal off by more than 10 € is 2005, CuotaTotal is 2006; within 10 € is fine', async () => {
    const r = await send(
      chain.alta({ importeTotal: '131.01' }),
      chain.alta({ cuotaTotal: '31.01', importeTotal: '121.00' }),
      chain.alta({ importeTotal: '131.00', cuotaTotal: '31.00' }),
    );
    expect(r.lineas.map((l) => [l.estado, l.codigo])).toEqual([
      ['AceptadoConErrores', 2005],
      ['AceptadoConErrores', 2006],
      ['Correcto', null],
    ]);
  });

  it('several admissible errors: one answered by priority, all kept in the ledger', async () => {
    const a = chain.alta({ importeTotal: '500.00', huellaOverride: 'E'.repeat(64) });
    const r = await send(a);
    expect(r.lineas[0]?.codigo).toBe(2000);
    expect(h.emu.ledger.getRecord(a.id)?.warnings).toEqual([2000, 2005]);
  });

  it('checks Destinatarios against the census only when asked (2001)', async () => {
    h.emu.configure({ checkRecipients: true });
    try {
      const r = await send(chain.alta({ destinatarioNif: '12345678Z' }), chain.alta({ destinatarioNif: '99999999R' }));
      expect(r.lineas.map((l) => l.codigo)).toEqual([null, 2001]);
    } finally {
      h.emu.configure({ checkRecipients: false });
    }
  });
});

describe('chain continuity per SIF (obligado + IdSistemaInformatico + NumeroInstalacion)', () => {
  it('an unbroken chain, across batches, rejections and resends, is intact', async () => {
    const a = chain.alta();
    const b = chain.alta();
    await send(a, b);
    h.emu.faults.set({ rejectNext: { count: 1, codigo: 1100 } });
    const c = chain.alta(); // rejected, but the till chains the next record to it
    await send(c);
    await send(a, b); // resend after a crash: not links of the chain
    const d = chain.alta();
    await send(d, chain.anulacion(a.id));
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
    expect(h.emu.ledger.chainHead(DEMO.nif)).toMatchObject({ numSerie: a.id.numSerie, length: 5 });
    expect(h.emu.ledger.presentations().filter((p) => p.retransmission)).toHaveLength(2);
  });

  it('a record pointing elsewhere is accepted (AEAT does not reject) but the break is recorded', async () => {
    const a = chain.alta();
    await send(a);
    const lost = chain.alta(); // generated but never sent
    void lost;
    const c = chain.alta();
    const r = await send(c);
    expect(r.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(false);
    const breaks = h.emu.ledger.chainBreaks(DEMO.nif);
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toMatchObject({ key: `${DEMO.nif}|${c.id.numSerie}|${c.id.fecha}`, chainOk: false });
    expect(breaks[0]?.chainProblem).toContain('NumSerieFactura, Huella');
  });

  it('PrimerRegistro when records already exist: accepted with 2007, and a chain break', async () => {
    await send(chain.alta());
    chain.setPrev(null);
    const r = await send(chain.alta());
    expect(r.lineas[0]).toMatchObject({ estado: 'AceptadoConErrores', codigo: 2007 });
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(false);
  });

  it('previous huella equal to the record huella: 2008', async () => {
    const a = chain.alta();
    await send(a);
    const b = chain.alta({ huellaOverride: a.huella });
    const r = await send(b);
    expect(r.lineas[0]?.codigo).toBe(2000);
    expect(h.emu.ledger.getRecord(b.id)?.warnings).toEqual([2000, 2008]);
  });

  it('chains are per obligado', async () => {
    await send(chain.alta());
    const other = new ChainBuilder('89890001K', new Date(T0 - 3600_000));
    h.clock.advance(60);
    const r = await h.post(buildEnvelope({ obligado: { nif: '89890001K', nombre: 'CONTRIBUYENTE PRUEBAS AEAT' }, records: [other.alta(), other.alta()] }));
    expect(parseRespuesta(r.text).estadoEnvio).toBe('Correcto');
    expect(h.emu.ledger.chainIntact('89890001K')).toBe(true);
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
    expect(h.emu.ledger.countRecords('89890001K')).toBe(2);
    expect(h.emu.ledger.countRecords(DEMO.nif)).toBe(1);
  });

  it('each installation of one obligado keeps its own chain, interleaved in one submission', async () => {
    const caja1 = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), 'C1', 'INST-CAJA-1');
    const caja2 = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), 'C2', 'INST-CAJA-2');
    const central = chain.alta();
    const r = await send(caja1.alta(), central, caja2.alta(), caja1.alta(), chain.alta(), caja2.alta());
    expect(r.lineas.map((l) => l.estado)).toEqual(Array(6).fill('Correcto'));
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
    expect(h.emu.ledger.chainHeads(DEMO.nif).map((c) => [c.sistema, c.length])).toEqual([
      ['TT|0001', 2],
      ['TT|INST-CAJA-1', 2],
      ['TT|INST-CAJA-2', 2],
    ]);
    expect(h.emu.ledger.chainHead(DEMO.nif, 'TT|INST-CAJA-1')?.numSerie).toBe('C1-000002');
    expect(h.emu.ledger.summary().obligados).toEqual([{ nif: DEMO.nif, records: 6, chainIntact: true, chainLength: 6, chains: 3 }]);
  });

  it('a record chained to another installation\'s head is a break of its own chain', async () => {
    const caja1 = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), 'C1', 'INST-CAJA-1');
    const a = chain.alta();
    await send(a);
    caja1.setPrev({ ...a.id, huella: a.huella });
    const wrong = caja1.alta();
    await send(wrong);
    const breaks = h.emu.ledger.chainBreaks(DEMO.nif);
    expect(breaks).toHaveLength(1);
    expect(breaks[0]?.chainProblem).toContain('no previous record received');
  });

  it('PrimerRegistro on a new installation is not 2007, even when the obligado has other chains', async () => {
    await send(chain.alta());
    const nueva = new ChainBuilder(DEMO.nif, new Date(T0 - 3600_000), 'N', 'INST-NUEVA');
    const r = await send(nueva.alta());
    expect(r.lineas[0]).toMatchObject({ estado: 'Correcto' });
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
  });

  it('an anulación built on the official example chain validates and chains', async () => {
    const a = chain.alta();
    await send(a);
    const an = buildAnulacion({ ...a.id, prev: { ...a.id, huella: a.huella }, fechaHoraHusoGenRegistro: isoWithOffset(new Date(T0)) });
    const r = await send(an);
    expect(r.lineas[0]).toMatchObject({ estado: 'Correcto', tipoOperacion: 'Anulacion' });
    expect(h.emu.ledger.chainIntact(DEMO.nif)).toBe(true);
  });
});
