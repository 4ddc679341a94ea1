// «NO VERI*FACTU» (issue 32): the mode per installation and its switching rules, signed billing
// records (XSD-valid, verified by xmlsec1, nothing queued for filing, the non-verifiable QR URL),
// the signed and chained event log, and anomaly detection of tampered records and events.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cadenaHuellaEvento, huellaEvento } from '../../../engine/src/no-verifactu/eventos';
import { verificarFirma } from '../../../engine/src/no-verifactu/firma';
import { issuerChainKey } from '../../../engine/src/devices/chain-keys';
import { makeTestEngine, type TestEngine } from '../../support/engine';
import { validateAgainstVerifactuXsd } from '../../support/xsd';
import { xmlsec1Verify } from '../ticketbai/xmlsec';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { VerificadorCadena } from '../../../engine/src/verification/cadenas';
import { aTicketDemo } from '../../fixtures/verifactu';

const NOW = '2026-11-20T10:00:00.000Z';

function factura(nif: string, numero: string) {
  return aTicketDemo(nif, 'N', numero);
}

let t: TestEngine;
beforeEach(async () => {
  t = await makeTestEngine({ now: NOW });
});
afterEach(async () => {
  await t.close();
});

const issuer = () => t.engine.context.issuers.find('test', t.nifEmisor)!;
const setMode = (modo: 'verifactu' | 'no_verifactu') => t.engine.context.noVerifactu.modos.cambiar(issuer(), modo);

/** xmlsec1 with the install's TEST CA as the trusted root (the CA certificate travels in KeyInfo). */
function xmlsec(xml: string) {
  const ca = /<ds:X509Certificate>([^<]+)<\/ds:X509Certificate><ds:X509Certificate>([^<]+)</.exec(xml);
  expect(ca, 'KeyInfo carries the certificate and its CA').not.toBeNull();
  const pem = `-----BEGIN CERTIFICATE-----\n${(ca![2]!.match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;
  return xmlsec1Verify(xml, pem, new Date(Date.parse(NOW) + 60_000));
}

describe('HuellaEvento (AEAT hash spec 3.c)', () => {
  it('recomputes the HuellaEvento of a published RegistroEvento', () => {
    // status-system-startup.xml (invopop/gobl.verifactu, see the reading desk's README).
    const campos = {
      nifSistema: '12345678A',
      idSistemaInformatico: 'A1',
      version: '1.0',
      numeroInstalacion: '12345678A',
      nifObligado: 'B85905495',
      tipoEvento: '01',
      huellaAnterior: '0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF',
      fechaHoraHusoGenEvento: '2024-11-26T05:00:00+01:00',
    };
    expect(cadenaHuellaEvento(campos)).toBe(
      'NIF=12345678A&ID=&IdSistemaInformatico=A1&Version=1.0&NumeroInstalacion=12345678A&NIF=B85905495&TipoEvento=01' +
        '&HuellaEvento=0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF&FechaHoraHusoGenEvento=2024-11-26T05:00:00+01:00',
    );
    expect(huellaEvento(campos)).toBe('D6CAD0C806A62E69328922E3C3097FD84635A2AAA9EA8222CE141393B6AC8978');
  });
});

describe('mode of the installation', () => {
  it('defaults to verifactu; the switch writes the start event, signed, chained and XSD-valid', async () => {
    const ctx = t.engine.context;
    expect(ctx.noVerifactu.modos.modo('test', t.nifEmisor)).toBe('verifactu');
    const r = setMode('no_verifactu');
    expect(r).toMatchObject({ modoSif: 'no_verifactu', cambiado: true, desde: NOW });
    expect(setMode('no_verifactu').cambiado).toBe(false);
    const eventos = ctx.noVerifactu.eventos.todos('test', t.nifEmisor);
    expect(eventos.map((e) => e.tipoEvento)).toEqual(['01']);
    const xml = eventos[0]!.xml;
    expect(xml).toContain('<sf:PrimerEvento>S</sf:PrimerEvento>');
    expect(await validateAgainstVerifactuXsd(xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
    expect(verificarFirma(xml).valid).toBe(true);
    expect(xmlsec(xml).ok).toBe(true);
    // Back to VERI*FACTU is allowed at any time, and is logged (02), chained to 01.
    expect(setMode('verifactu').modoSif).toBe('verifactu');
    const dos = ctx.noVerifactu.eventos.todos('test', t.nifEmisor);
    expect(dos.map((e) => e.tipoEvento)).toEqual(['01', '02']);
    expect(dos[1]!.huellaAnterior).toBe(dos[0]!.huella);
    expect(dos[1]!.xml).toContain(`<sf:HuellaEvento>${dos[0]!.huella}</sf:HuellaEvento>`);
    // …and binds for the calendar year: NO VERI*FACTU again is refused with the reason.
    expect(() => setMode('no_verifactu')).toThrow(expect.objectContaining({ code: 'SIF_MODE_LOCKED_YEAR', httpStatus: 409 }));
    // From 1 January (Madrid) it is allowed again.
    t.clock.set(new Date('2026-12-31T23:00:00.000Z'));
    expect(setMode('no_verifactu').modoSif).toBe('no_verifactu');
  });

  it('refuses NO VERI*FACTU after a record was sent this year, and for a TicketBAI issuer', async () => {
    const ctx = t.engine.context;
    const res = await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') });
    expect(res.statusCode, res.body).toBe(200);
    try {
      setMode('no_verifactu');
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'SIF_MODE_LOCKED_YEAR' });
      expect((e as Error).message).toContain('todo el año natural');
      expect((e as Error).message).toContain('1 de enero de 2027');
    }
    expect(ctx.noVerifactu.eventos.todos('test', t.nifEmisor)).toEqual([]);
    const accountId = issuer().accountId;
    const tbai = ctx.issuers.create({ accountId, entorno: 'test', nif: 'A58818501', nombre: 'EMISOR GIPUZKOA SL', hacienda: 'tbai-gipuzkoa' });
    expect(() => ctx.noVerifactu.modos.cambiar(tbai, 'no_verifactu')).toThrow(expect.objectContaining({ code: 'SIF_MODE_NOT_APPLICABLE' }));
  });
});

describe('signed records', () => {
  it('signs every alta and anulación in the issuing transaction, queues nothing, uses the non-verifiable QR', async () => {
    const ctx = t.engine.context;
    setMode('no_verifactu');
    for (const n of ['1', '2']) {
      const body = factura(t.nifEmisor, n);
      // Quotes, apostrophes and ampersands: entities the record builder writes and C14N does not.
      if (n === '2') body.cabecera.descripcion = `Venta "especial" de O'Neil & Cía <2>`;
      const res = await t.billing('POST', '/v1/verifactu/crear', { body });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().urlValidacion).toContain('/wlpl/TIKE-CONT/ValidarQRNoVerifactu?nif=');
    }
    const an = await t.billing('POST', '/v1/verifactu/anular', {
      body: { version: '1.0', facturaAnulada: { nifEmisor: t.nifEmisor, serie: 'N', numero: '1', fechaExpedicion: '20-11-2026' } },
    });
    expect(an.statusCode, an.body).toBe(200);
    // A correction (subsanación) of invoice 2: signed too, the invoice stays registered and kept.
    const sub = await t.billing('PUT', '/v1/verifactu/subsanar', { body: { ...factura(t.nifEmisor, '2'), subsanacion: true } });
    expect(sub.statusCode, sub.body).toBe(200);
    expect(sub.json().urlValidacion).toContain('/ValidarQRNoVerifactu?');
    const chain = ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor));
    expect(chain.map((r) => r.tipo)).toEqual(['alta', 'alta', 'anulacion', 'subsanacion']);
    // Signed on the canonical path: the stored document is the record's C14N form.
    expect(chain[1]!.xml).toContain(`Venta "especial" de O'Neil &amp; Cía &lt;2&gt;`);
    for (const r of chain) {
      expect(r.estadoEnvio).toBe('no_remitida');
      expect(r.xml).toContain('<sum1:TipoUsoPosibleSoloVerifactu>N</sum1:TipoUsoPosibleSoloVerifactu>');
      // The AGE policy of the AEAT's signature document: identifier, SHA-1 digest, SPURI.
      expect(r.xml).toContain(
        '<xades:Identifier>urn:oid:2.16.724.1.3.1.1.2.1.9</xades:Identifier><xades:Description></xades:Description></xades:SigPolicyId><xades:SigPolicyHash>' +
          '<ds:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"></ds:DigestMethod><ds:DigestValue>G7roucf600+f03r/o0bAOQ6WAs0=</ds:DigestValue></xades:SigPolicyHash>' +
          '<xades:SigPolicyQualifiers><xades:SigPolicyQualifier><xades:SPURI>https://sede.administracion.gob.es/politica_de_firma_anexo_1.pdf</xades:SPURI>',
      );
      expect(await validateAgainstVerifactuXsd(r.xml, 'SuministroInformacion.xsd')).toEqual({ valid: true, errors: [] });
      expect(verificarFirma(r.xml)).toMatchObject({ valid: true });
      const check = xmlsec(r.xml);
      expect(check.ok, check.output).toBe(true);
    }
    const jobs = ctx.db.all(ctx.db.kysely.selectFrom('submission_jobs').select('id'));
    expect(jobs).toEqual([]);
    const inv = ctx.invoices.findByIdentity({ entorno: 'test', nifEmisor: t.nifEmisor, serie: 'N', numero: '2', fechaExpedicion: '20-11-2026' })!;
    expect(inv).toMatchObject({ estadoFactura: 'registrada', estadoEnvio: 'no_remitida' });
    expect(ctx.invoices.findByIdentity({ entorno: 'test', nifEmisor: t.nifEmisor, serie: 'N', numero: '1', fechaExpedicion: '20-11-2026' })).toMatchObject({
      estadoFactura: 'anulada',
    });
  });
});

describe('anomaly detection', () => {
  it('finds a tampered record, a tampered event and a deleted event, and logs the run and each anomaly', async () => {
    const ctx = t.engine.context;
    setMode('no_verifactu');
    for (const n of ['1', '2', '3']) {
      expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, n) })).statusCode).toBe(200);
    }
    // A clean run: the launches only, XSD-valid.
    const limpio = ctx.noVerifactu.anomalias.ejecutar(issuer());
    expect(limpio).toMatchObject({ registrosAnalizados: 3, eventosAnalizados: 1, anomalias: [] });
    expect(limpio.eventosAnotados.map((e) => e.tipoEvento)).toEqual(['03', '05']);
    expect(ctx.noVerifactu.anomalias.ejecutar(issuer()).anomalias).toEqual([]);


    const chain = ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor));
    // Tampered record: the amount changed in the stored XML (signature and huella no longer match).
    ctx.db.statement('UPDATE registro_documentos SET xml = replace(xml, ?, ?) WHERE registroId = ?').run('<sum1:ImporteTotal>12.1', '<sum1:ImporteTotal>99.1', chain[1]!.id);
    const eventos = ctx.noVerifactu.eventos.todos('test', t.nifEmisor);
    // Tampered event: its type changed. Deleted event: the one after it.
    ctx.db.statement("UPDATE sif_eventos SET xml = replace(xml, '<sf:TipoEvento>03</sf:TipoEvento><sf:DatosPropiosEvento>', '<sf:TipoEvento>90</sf:TipoEvento><sf:DatosPropiosEvento>') WHERE id = ?").run(eventos[1]!.id);
    ctx.db.statement('DELETE FROM sif_eventos WHERE id = ?').run(eventos[2]!.id);

    const r = ctx.noVerifactu.anomalias.ejecutar(issuer());
    const registro = r.anomalias.filter((a) => a.ambito === 'registro');
    expect(registro.map((a) => [a.id, a.tipoAnomalia])).toEqual(
      expect.arrayContaining([
        [chain[1]!.id, '01'],
        [chain[1]!.id, '02'],
      ]),
    );
    const evento = r.anomalias.filter((a) => a.ambito === 'evento');
    expect(evento.map((a) => [a.id, a.tipoAnomalia])).toEqual(
      expect.arrayContaining([
        [eventos[1]!.id, '01'],
        [eventos[1]!.id, '02'],
        [eventos[3]!.id, '04'],
      ]),
    );
    // Logged: 03, one 04 per record anomaly, 05, one 06 per event anomaly; every one XSD-valid and signed.
    const tipos = r.eventosAnotados.map((e) => e.tipoEvento);
    expect(tipos).toEqual(['03', ...registro.map(() => '04'), '05', ...evento.map(() => '06')]);
    const anotados = ctx.noVerifactu.eventos.todos('test', t.nifEmisor).filter((e) => r.eventosAnotados.some((a) => a.id === e.id));
    for (const e of anotados) {
      expect(await validateAgainstVerifactuXsd(e.xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
      expect(verificarFirma(e.xml).valid).toBe(true);
    }
    expect(anotados.find((e) => e.tipoEvento === '04')!.xml).toContain(`<sf:NumSerieFactura>N2</sf:NumSerieFactura>`);
    // A deleted last event: the head still names it.
    const todos = ctx.noVerifactu.eventos.todos('test', t.nifEmisor);
    ctx.db.statement('DELETE FROM sif_eventos WHERE id = ?').run(todos.at(-1)!.id);
    const ultimo = ctx.noVerifactu.anomalias.ejecutar(issuer());
    expect(ultimo.anomalias.filter((a) => a.ambito === 'evento').map((a) => a.tipoAnomalia)).toContain('05');
  });
});

describe('anomaly detection: dates', () => {
  it('flags records and events generated after the system\'s current time (13), and logs the fecha checks as done', async () => {
    const ctx = t.engine.context;
    setMode('no_verifactu');
    expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, '1') })).statusCode).toBe(200);
    const limpio = ctx.noVerifactu.anomalias.ejecutar(issuer());
    expect(limpio.anomalias).toEqual([]);
    const lanzamiento = ctx.noVerifactu.eventos.todos('test', t.nifEmisor).find((e) => e.id === limpio.eventosAnotados[0]!.id)!;
    expect(lanzamiento.xml).toContain('<sf:RealizadoProcesoSobreTrazabilidadFechasRegFacturacion>S</sf:RealizadoProcesoSobreTrazabilidadFechasRegFacturacion><sf:NumeroDeRegistrosFacturacionProcesadosSobreTrazabilidadFechas>1<');
    // The system clock goes back an hour (a wrong clock, or records written by another one).
    t.clock.set(new Date(Date.parse(NOW) - 3600_000));
    const r = ctx.noVerifactu.anomalias.ejecutar(issuer());
    const registro = ctx.invoices.chain(issuerChainKey('verifactu', 'test', t.nifEmisor))[0]!;
    expect(r.anomalias).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ambito: 'registro', tipoAnomalia: '13', id: registro.id }),
        expect.objectContaining({ ambito: 'evento', tipoAnomalia: '13' }),
      ]),
    );
    // The next events are generated before the previous ones: 11 on the next run.
    const despues = ctx.noVerifactu.anomalias.ejecutar(issuer());
    expect(despues.anomalias.some((a) => a.ambito === 'evento' && a.tipoAnomalia === '11')).toBe(true);
  });
});

describe('exports', () => {
  it('writes the period\'s records and events as files the chains recompute from, and logs 08 and 09', async () => {
    const ctx = t.engine.context;
    setMode('no_verifactu');
    for (const n of ['1', '2']) {
      expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, n) })).statusCode).toBe(200);
    }
    const an = await t.billing('POST', '/v1/verifactu/anular', {
      body: { version: '1.0', facturaAnulada: { nifEmisor: t.nifEmisor, serie: 'N', numero: '2', fechaExpedicion: '20-11-2026' } },
    });
    expect(an.statusCode, an.body).toBe(200);
    const dir = mkdtempSync(path.join(tmpdir(), 'export-'));
    const periodo = { desde: new Date('2026-11-01T00:00:00+01:00'), hasta: new Date('2026-11-30T23:59:59+01:00') };
    const r = ctx.noVerifactu.exportaciones.exportar(issuer(), periodo, dir);
    expect(r.registros).toMatchObject({ altas: 2, anulaciones: 1, sumaCuotaTotalAlta: '4.20', sumaImporteTotalAlta: '24.20' });
    expect(r.eventos).toMatchObject({ numero: 1 });
    expect(r.eventosAnotados.map((e) => e.tipoEvento)).toEqual(['08', '09']);
    const lines = readFileSync(r.registros.fichero, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { idRegistro: string; cadena: string; secuencia: number; xml: string });
    const v = new VerificadorCadena(lines[0]!.cadena);
    for (const l of lines) v.add({ id: l.idRegistro, chainKey: l.cadena, chainSeq: l.secuencia, entorno: 'test', nifEmisor: t.nifEmisor, sistemaFiscal: 'verifactu', idMaquina: null, serie: 'N', numero: '', xml: l.xml });
    expect(v.terminar().problemas).toEqual([]);
    const eventos = ctx.noVerifactu.eventos.todos('test', t.nifEmisor);
    for (const e of eventos.filter((x) => x.tipoEvento === '08' || x.tipoEvento === '09')) {
      expect(await validateAgainstVerifactuXsd(e.xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
    }
    expect(eventos.find((e) => e.tipoEvento === '08')!.xml).toContain('<sf:NumeroDeRegistrosFacturacionAnulacionExportados>1<');
    // A period without records: refused, nothing logged.
    expect(() => ctx.noVerifactu.exportaciones.exportar(issuer(), { desde: new Date('2026-01-01T00:00:00Z'), hasta: new Date('2026-01-02T00:00:00Z') }, dir)).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
    expect(ctx.noVerifactu.eventos.todos('test', t.nifEmisor)).toHaveLength(eventos.length);
  });
});

describe('summary event and the background pass', () => {
  it('detects after a start and then daily, writes the summary six hours after the start in this mode and then every six hours', async () => {
    const ctx = t.engine.context;
    setMode('no_verifactu');
    for (const n of ['1', '2']) expect((await t.billing('POST', '/v1/verifactu/crear', { body: factura(t.nifEmisor, n) })).statusCode).toBe(200);
    const tipos = () => ctx.noVerifactu.eventos.todos('test', t.nifEmisor).map((e) => e.tipoEvento);
    // First pass after a start: detection (03, 05); no summary before six hours.
    expect(ctx.noVerifactu.resumenes.pasada()).toEqual({ deteccion: [`test|${t.nifEmisor}`], resumenes: [] });
    expect(tipos()).toEqual(['01', '03', '05']);
    t.clock.set(new Date(Date.parse(NOW) + 6 * 3600_000 - 1000));
    expect(ctx.noVerifactu.resumenes.pasada()).toEqual({ deteccion: [], resumenes: [] });
    t.clock.set(new Date(Date.parse(NOW) + 6 * 3600_000));
    expect(ctx.noVerifactu.resumenes.pasada().resumenes).toEqual([`test|${t.nifEmisor}`]);
    expect(tipos()).toEqual(['01', '03', '05', '10']);
    const resumen = ctx.noVerifactu.eventos.todos('test', t.nifEmisor).at(-1)!;
    expect(await validateAgainstVerifactuXsd(resumen.xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
    expect(verificarFirma(resumen.xml).valid).toBe(true);
    // Counted since the start event (01 included), the two altas summed.
    for (const [tipo, n] of [['01', 1], ['03', 1], ['05', 1]] as const) {
      expect(resumen.xml).toContain(`<sf:TipoEvento><sf:TipoEvento>${tipo}</sf:TipoEvento><sf:NumeroDeEventos>${n}</sf:NumeroDeEventos></sf:TipoEvento>`);
    }
    expect(resumen.xml).toContain('<sf:NumeroDeRegistrosFacturacionAltaGenerados>2</sf:NumeroDeRegistrosFacturacionAltaGenerados><sf:SumaCuotaTotalAlta>4.20</sf:SumaCuotaTotalAlta><sf:SumaImporteTotalAlta>24.20</sf:SumaImporteTotalAlta>');
    // The next one six hours later: an empty period still validates.
    t.clock.set(new Date(Date.parse(NOW) + 12 * 3600_000));
    expect(ctx.noVerifactu.resumenes.pasada().resumenes).toHaveLength(1);
    const vacio = ctx.noVerifactu.eventos.todos('test', t.nifEmisor).at(-1)!;
    expect(vacio.tipoEvento).toBe('10');
    expect(await validateAgainstVerifactuXsd(vacio.xml, 'EventosSIF.xsd')).toEqual({ valid: true, errors: [] });
    expect(vacio.xml).toContain('<sf:NumeroDeRegistrosFacturacionAltaGenerados>0<');
    // Detection again a day after the last run (besides every start and on demand).
    t.clock.set(new Date(Date.parse(NOW) + 24 * 3600_000 - 1000));
    expect(ctx.noVerifactu.resumenes.pasada()).toEqual({ deteccion: [], resumenes: [`test|${t.nifEmisor}`] });
    t.clock.set(new Date(Date.parse(NOW) + 24 * 3600_000));
    expect(ctx.noVerifactu.resumenes.pasada()).toEqual({ deteccion: [`test|${t.nifEmisor}`], resumenes: [] });
    expect(tipos().slice(-3)).toEqual(['10', '03', '05']);
  });
});

it('ships EventosSIF.xsd unmodified next to the other AEAT schemas', () => {
  const root = path.resolve(import.meta.dirname, '../../..');
  expect(readFileSync(path.join(root, 'assets/reference/verifactu/xsd/EventosSIF.xsd'), 'utf8')).toContain('name="RegistroEvento"');
});
