import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { REFERENCE_DIR, invalidAeatReplies } from './xsd';

// The check every test engine runs on close (test/support/engine.ts): it must be able to fail.
const accepted = readFileSync(path.join(REFERENCE_DIR, 'verifactu/examples/odoo/batch_single_accepted_registration.xml'), 'utf8');
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
