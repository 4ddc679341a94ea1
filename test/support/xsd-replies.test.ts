import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { invalidAeatReplies } from './xsd';

// The check every test engine runs on close (test/support/engine.ts): it must be able to fail.
// An accepted answer shaped by RespuestaSuministro.xsd (a fixture of our own).
const SF = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws';
const accepted =
  `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body>` +
  `<tikR:RespuestaRegFactuSistemaFacturacion xmlns:tik="${SF}/SuministroInformacion.xsd" xmlns:tikR="${SF}/RespuestaSuministro.xsd">` +
  `<tikR:CSV>A-TESTCSV0000001</tikR:CSV><tikR:DatosPresentacion><tik:NIFPresentador>B12345674</tik:NIFPresentador><tik:TimestampPresentacion>2026-11-20T11:00:00+01:00</tik:TimestampPresentacion></tikR:DatosPresentacion>` +
  `<tikR:Cabecera><tik:ObligadoEmision><tik:NombreRazon>Tienda de prueba SL</tik:NombreRazon><tik:NIF>B12345674</tik:NIF></tik:ObligadoEmision></tikR:Cabecera>` +
  `<tikR:TiempoEsperaEnvio>60</tikR:TiempoEsperaEnvio><tikR:EstadoEnvio>Correcto</tikR:EstadoEnvio>` +
  `<tikR:RespuestaLinea><tikR:IDFactura><tik:IDEmisorFactura>B12345674</tik:IDEmisorFactura><tik:NumSerieFactura>T1-1</tik:NumSerieFactura><tik:FechaExpedicionFactura>20-11-2026</tik:FechaExpedicionFactura></tikR:IDFactura>` +
  `<tikR:Operacion><tik:TipoOperacion>Alta</tik:TipoOperacion></tikR:Operacion><tikR:EstadoRegistro>Correcto</tikR:EstadoRegistro></tikR:RespuestaLinea>` +
  `</tikR:RespuestaRegFactuSistemaFacturacion></env:Body></env:Envelope>`;
const fault = `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><env:Fault><faultcode>env:Client</faultcode><faultstring>Codigo[4104].Error en la cabecera</faultstring></env:Fault></env:Body></env:Envelope>`;

function store(rows: { id: string; autoridad?: string; estado: string; respuesta: string | null }[]): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE submission_batches (id TEXT PRIMARY KEY, autoridad TEXT NOT NULL, estado TEXT NOT NULL, respuesta TEXT)');
  const insert = db.prepare('INSERT INTO submission_batches VALUES (?, ?, ?, ?)');
  for (const r of rows) insert.run(r.id, r.autoridad ?? 'aeat', r.estado, r.respuesta);
  return db;
}

describe('invalidAeatReplies: stored AEAT replies against RespuestaSuministro.xsd', () => {
  it('passes AEAT-shaped replies and skips the client Fault of a refused batch, unanswered batches and other authorities', async () => {
    const db = store([
      { id: 'ok', estado: 'respondido', respuesta: accepted },
      { id: 'refused', estado: 'rechazado', respuesta: fault },
      { id: 'waiting', estado: 'pendiente_respuesta', respuesta: null },
      { id: 'tbai', autoridad: 'bizkaia', estado: 'respondido', respuesta: '<LROEPJ240FacturasEmitidasConSGAltaRespuesta/>' },
    ]);
    expect(await invalidAeatReplies(db)).toEqual([]);
  });

  it('reports a reply that breaks the schema', async () => {
    const broken = accepted.replace('<tikR:EstadoEnvio>Correcto</tikR:EstadoEnvio>', '<tikR:EstadoEnvio>Vale</tikR:EstadoEnvio>');
    const problems = await invalidAeatReplies(store([{ id: 'bad', estado: 'respondido', respuesta: broken }]));
    expect(problems.join('\n')).toMatch(/EstadoEnvio/);
  });

  it('reports an applied reply whose Body is not RespuestaRegFactuSistemaFacturacion', async () => {
    const problems = await invalidAeatReplies(store([{ id: 'applied-fault', estado: 'respondido', respuesta: fault }]));
    expect(problems).toEqual(['applied-fault: the SOAP Body holds Fault, not RespuestaRegFactuSistemaFacturacion']);
  });
});
