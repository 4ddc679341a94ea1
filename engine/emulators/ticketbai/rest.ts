import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { cutAnswer } from '../common/transport';
import type { IdSource, Clock } from '../types';
import type { ResultCode } from './codes';
import { ALTA, ANULA, resultCode } from './codes';
import type { TbaiFaults } from './faults';
import type { TbaiLedger, TbaiService } from './ledger';
import type { Outcome, ProvinciaConfig, RecordCtx, Dialect, CodeDetail } from './process';
import { processAlta, processAnulacion, processZuzenduAlta, processZuzenduBaja, rejectUnread } from './process';
import type { ParsedTbai } from './parse';
import { EXPECTED_ROOT, XmlError, parseTicketBai, parseXml, rootName } from './parse';
import { fechaHora, makeCsv, ticketBaiResponseXml } from './response';
import type { Reply } from './transport';
import type { ProvinciaRest } from './urls';
import type { TbaiXsdPool } from './xsd';
import { verifyTicketBaiSignature } from './xmldsig';

// Araba and Gipuzkoa: one signed invoice (or cancellation, or Zuzendu request)
// per POST, answered with TicketBaiResponse (Estado 00 Recibido / 01 Rechazado).
//
// Decisions where the documents are silent (see README-urls.md):
//  - a bad signature is a warning (alta 008, anulación 004), as the service
//    description lists it under "Avisos" and the real answer kept in
//    examples/gipuzkoa-responses shows 008 on an invoice "Recibido";
//  - rejected answers carry no IdentificadorTBAI (the real 005 answer has none);
//  - the identifier answered for a cancellation is the cancelled invoice's.

export const XML_CT = 'application/xml;charset=UTF-8';

export const REST_DIALECT: Dialect = {
  code(service: TbaiService, f) {
    const anul = service === 'anulacion' || service === 'zuzendu-baja';
    switch (f) {
      case 'idData':
        return ALTA.datoIdTbai;
      case 'noLines':
        return ALTA.sinLineas;
      case 'duplicate':
        return ALTA.duplicada;
      case 'notFound':
        // Zuzendu MODIFICAR of an unknown invoice borrows the anulación code.
        return ANULA.noExiste;
      case 'alreadyCancelled':
        return ANULA.yaAnulada;
      case 'nifMismatch':
        return ALTA.datoIdTbai;
      case 'signature':
        return anul ? ANULA.firma : ALTA.firma;
      case 'chain':
        return ALTA.encadenamiento;
      case 'newDevice':
        return ALTA.firmanteNoValido;
    }
  },
  estado: (v) => (v === 'rejected' ? '01' : '00'),
};

/** What a TicketBAI service works with (this file for Araba and Gipuzkoa, lroe.ts for Bizkaia). */
export interface ServiceEnv {
  ledger: TbaiLedger;
  faults: TbaiFaults;
  config: ProvinciaConfig;
  xsd: TbaiXsdPool;
  clock: Clock;
  ids: IdSource;
}

export interface RestEnv extends ServiceEnv {
  provincia: ProvinciaRest;
  tls: boolean;
}

const tableOf = (s: TbaiService): 'alta' | 'anulacion' => (s === 'alta' || s === 'zuzendu-alta' ? 'alta' : 'anulacion');

function toResult(service: TbaiService, c: CodeDetail, rejected: boolean): ResultCode {
  // Zuzendu MODIFICAR of an unknown invoice: the anulación table's 010, not the alta warning 010.
  const table = service === 'zuzendu-alta' && rejected && c.codigo === ANULA.noExiste ? 'anulacion' : tableOf(service);
  return resultCode(table, c.codigo, c.detail);
}

export function xsdDetail(errors: readonly string[]): string {
  const first = (errors[0] ?? '').replace(/\{[^}]*\}/g, '').replace(/^.*?Schemas validity error\s*:\s*/, '');
  return first.slice(0, 180);
}

/** Serves one REST request body; never throws for client errors. */
export async function serveRest(env: RestEnv, service: TbaiService, req: IncomingMessage, body: Buffer): Promise<Reply> {
  const now = env.clock();
  const at = now.toISOString();
  const t0 = performance.now();
  const xml = body.toString('utf8').replace(/^\uFEFF/, '');
  const submissionId = env.ledger.insertSubmission({
    provincia: env.provincia,
    service,
    receivedAt: at,
    nif: null,
    requestSha256: createHash('sha256').update(body).digest('hex'),
    requestBytes: body.length,
    recordCount: 1,
    outcome: 'processed',
  });
  const csv = makeCsv(env.ids());
  const ctx: RecordCtx = {
    provincia: env.provincia,
    ledger: env.ledger,
    faults: env.faults,
    config: env.config,
    dialect: REST_DIALECT,
    at,
    submissionId,
    line: 1,
    csv,
  };

  let outcome: Outcome;
  let nif: string | null = null;
  const tlsSock = req.socket as Partial<TLSSocket>;
  if (env.tls && !tlsSock.authorized) {
    outcome = env.ledger.transaction(() => rejectUnread(ctx, service, { codigo: ALTA.certificado }));
  } else {
    let parsed: ParsedTbai | null = null;
    let early: CodeDetail | null = null;
    let doc: ReturnType<typeof parseXml> | undefined;
    try {
      doc = parseXml(xml);
      const want = EXPECTED_ROOT[service];
      const got = rootName(doc);
      if (got.ns !== want.ns || got.name !== want.name) {
        early = { codigo: ALTA.xsd, detail: `se esperaba {${want.ns}}${want.name} y se recibió {${got.ns ?? ''}}${got.name}` };
      }
      try {
        parsed = parseTicketBai(doc);
      } catch {
        parsed = null;
      }
    } catch (e) {
      early = { codigo: ALTA.xsd, detail: e instanceof XmlError ? e.message.slice(0, 180) : 'XML no legible' };
    }
    if (!early && env.config.validateXsd) {
      const v = await env.xsd.validate('tbai', xml);
      if (!v.valid) early = { codigo: ALTA.xsd, detail: xsdDetail(v.errors) };
    }
    nif = parsed?.nif ?? null;
    // Signature check outside the ledger transaction (pure CPU, no shared state).
    const sig =
      !early && parsed && (parsed.kind === 'alta' || parsed.kind === 'anulacion') && env.config.verifySignature
        ? verifyTicketBaiSignature(xml, env.config.policies, doc)
        : null;
    outcome = env.ledger.transaction(() => {
      if (early || !parsed) {
        const p = parsed;
        return rejectUnread(ctx, service, early ?? { codigo: ALTA.xsd }, {
          nif: p?.nif ?? null,
          device: p?.device ?? '',
          signatureValue: p?.signatureValue ?? '',
        });
      }
      switch (parsed.kind) {
        case 'alta':
          return processAlta(ctx, parsed, sig);
        case 'anulacion':
          return processAnulacion(ctx, parsed, sig);
        case 'zuzendu-alta':
          return processZuzenduAlta(ctx, parsed);
        case 'zuzendu-baja':
          return processZuzenduBaja(ctx, parsed);
      }
    });
  }

  const accepted = outcome.verdict !== 'rejected';
  const resultados = accepted
    ? outcome.warnings.map((w) => toResult(service, w, false))
    : [toResult(service, outcome.rejection ?? { codigo: ALTA.xsd }, true)];
  const xmlOut = ticketBaiResponseXml({
    identificadorTbai: accepted ? outcome.idTbai : null,
    fechaRecepcion: fechaHora(now),
    estado: accepted ? '00' : '01',
    resultados,
    csv: accepted ? csv : null,
  });
  env.ledger.finishSubmission({
    id: submissionId,
    nif,
    outcome: 'processed',
    recordCount: 1,
    estado: accepted ? '00' : '01',
    codigo: resultados[0]?.codigo ?? null,
    mensaje: resultados[0]?.descripcion ?? null,
    csv: accepted ? csv : null,
    identificativo: null,
    processMs: performance.now() - t0,
  });
  return { status: 200, headers: { 'content-type': XML_CT }, body: xmlOut };
}

/** The `malformed` fault: a real answer cut in the middle (or the start of one). */
export function malformedRest(processed: Reply | null): Reply {
  const whole =
    typeof processed?.body === 'string'
      ? processed.body
      : '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ns2:TicketBaiResponse xmlns:ns2="urn:ticketbai:emision">\n    <Salida>\n        <FechaRecepcion>';
  return { status: 200, headers: { 'content-type': XML_CT }, body: cutAnswer(whole) };
}
