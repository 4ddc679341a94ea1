import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { certNif, cutAnswer } from '../common/transport';
import { LROE, lroeText } from './codes';
import type { TbaiService } from './ledger';
import type { CodeDetail, Dialect, Outcome, RecordCtx } from './process';
import { processAlta, processAnulacion, rejectUnread } from './process';
import type { ParsedAlta, ParsedAnulacion } from './parse';
import { EXPECTED_ROOT, XmlError, all, el, parseTicketBai, parseXml, rootName, txt } from './parse';
import type { EstadoRegistro, LroeCabecera, LroeModel, LroeOp, LroeRegistro } from './response';
import { LROE_ROOTS, fechaHora, lroeResponseXml, makeIdentificativo } from './response';
import type { Reply } from './transport';
import type { ServiceEnv } from './rest';
import { xsdDetail } from './rest';
import type { SignatureCheck } from './xmldsig';
import { verifyTicketBaiSignature } from './xmldsig';

// Bizkaia (Batuz) LROE: POST /N3B4000M/aurkezpena with the N3 headers and a
// gzipped LROE petition (model 240 legal persons / 140 natural persons, chapter 1,
// subchapter 1.1 "con software garante"), each record carrying a signed TicketBAI
// file in base64. The answer: headers eus-bizkaia-n3-tipo-respuesta
// (Correcto / ParcialmenteCorrecto / Incorrecto — the spelling seen in real
// answers), -identificativo, -codigo-respuesta, -mensaje-respuesta, and the
// gzipped Respuesta XML with one SituacionRegistro per record.
//
// Decisions where the references are silent: signature and chaining problems
// leave the record AceptadoConErrores (B4_2000070 / B4_2000060), like the
// warnings of the other two provinces; request-level header problems answer
// Incorrecto with N3_0000011 and a message, without a body.

export const LROE_RESPONSE_CT = 'application/xml;charset=UTF-8';

export const N3Data = z.object({
  con: z.literal('LROE'),
  apa: z.literal('1.1'),
  inte: z.object({
    nif: z.string().regex(/^[0-9A-Z]{9}$/),
    nrs: z.string().min(1),
    ap1: z.string().optional(),
    ap2: z.string().optional(),
  }),
  drs: z.object({
    mode: z.enum(['240', '140']),
    ejer: z.string().regex(/^\d{4}$/),
  }),
});
export type N3Data = z.infer<typeof N3Data>;

export const LROE_DIALECT: Dialect = {
  code(_service: TbaiService, f) {
    switch (f) {
      case 'idData':
      case 'nifMismatch':
      case 'noLines':
        return LROE.datoObligatorio;
      case 'duplicate':
      case 'alreadyCancelled':
        return LROE.duplicado;
      case 'notFound':
        return LROE.noExiste;
      case 'signature':
        return LROE.firma;
      case 'chain':
        return LROE.encadenamiento;
      case 'newDevice':
        return LROE.datoObligatorio; // never configured for Bizkaia
    }
  },
  estado: (v) => (v === 'rejected' ? 'Incorrecto' : v === 'accepted' ? 'Correcto' : 'AceptadoConErrores'),
};

export type LroeEnv = ServiceEnv;

/** Header values must be Latin-1. */
const latin1 = (s: string): string => s.replace(/[^\x20-\x7e\xa0-\xff]/g, '?');

function headerReply(tipo: string, codigo: string, mensaje: string, identificativo: string, body?: Buffer): Reply {
  return {
    status: 200,
    headers: {
      'content-type': LROE_RESPONSE_CT,
      'eus-bizkaia-n3-tipo-respuesta': tipo,
      'eus-bizkaia-n3-identificativo': identificativo,
      'eus-bizkaia-n3-codigo-respuesta': codigo,
      'eus-bizkaia-n3-numero-registro': '',
      ...(mensaje ? { 'eus-bizkaia-n3-mensaje-respuesta': latin1(mensaje) } : {}),
      ...(body ? { 'content-encoding': 'gzip' } : {}),
    },
    body: body ?? Buffer.alloc(0),
  };
}

function identify(ns: string | null, name: string): { model: LroeModel; op: LroeOp } | null {
  for (const model of ['240', '140'] as const) {
    for (const op of ['alta', 'anulacion'] as const) {
      const r = LROE_ROOTS[model][op];
      if (r.peticion === name && r.peticionNs === ns) return { model, op };
    }
  }
  return null;
}

interface Rec {
  base64: string;
  xml: string | null;
  problem: CodeDetail | null;
  parsed: ParsedAlta | ParsedAnulacion | null;
  sig: SignatureCheck | null;
}

export async function serveLroe(env: LroeEnv, req: IncomingMessage, body: Buffer): Promise<Reply> {
  const now = env.clock();
  const at = now.toISOString();
  const t0 = performance.now();
  const identificativo = makeIdentificativo(env.ids());
  const submissionId = env.ledger.insertSubmission({
    provincia: 'bizkaia',
    service: 'lroe',
    receivedAt: at,
    nif: null,
    requestSha256: createHash('sha256').update(body).digest('hex'),
    requestBytes: body.length,
    recordCount: 0,
    outcome: 'processed',
  });
  const refuse = (codigo: string, mensaje: string, nif: string | null = null): Reply => {
    env.ledger.finishSubmission({
      id: submissionId,
      nif,
      outcome: 'refused',
      recordCount: 0,
      estado: 'Incorrecto',
      codigo,
      mensaje,
      csv: null,
      identificativo,
      processMs: performance.now() - t0,
    });
    return headerReply('Incorrecto', codigo, mensaje, identificativo);
  };

  // N3 headers.
  const h = (n: string): string | undefined => {
    const v = req.headers[n];
    return Array.isArray(v) ? v[0] : v;
  };
  if (!h('eus-bizkaia-n3-version')) return refuse(LROE.otros, 'Falta la cabecera eus-bizkaia-n3-version.');
  const ct = h('eus-bizkaia-n3-content-type');
  if (ct !== 'application/xml') return refuse(LROE.otros, `eus-bizkaia-n3-content-type debe ser application/xml (recibido: ${ct ?? 'nada'}).`);
  let data: N3Data;
  try {
    const parsed = N3Data.safeParse(JSON.parse(h('eus-bizkaia-n3-data') ?? ''));
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      return refuse(LROE.otros, `eus-bizkaia-n3-data no válido: ${i ? `${i.path.join('.')}: ${i.message}` : ''}`);
    }
    data = parsed.data;
  } catch {
    return refuse(LROE.otros, 'eus-bizkaia-n3-data no es JSON.');
  }

  // Body: gzip.
  let xml: string;
  try {
    xml = gunzipSync(body).toString('utf8').replace(/^\uFEFF/, '');
  } catch {
    return refuse(LROE.otros, 'El contenido de la petición no está comprimido con gzip.', data.inte.nif);
  }
  let doc;
  try {
    doc = parseXml(xml);
  } catch (e) {
    return refuse(LROE.xsdPeticion, e instanceof XmlError ? e.message.slice(0, 200) : 'XML no legible.', data.inte.nif);
  }
  const rn = rootName(doc);
  const kind = identify(rn.ns, rn.name);
  if (!kind) return refuse(LROE.xsdPeticion, `Petición no soportada: {${rn.ns ?? ''}}${rn.name}.`, data.inte.nif);
  if (kind.model !== data.drs.mode) {
    return refuse(LROE.otros, `drs.mode ${data.drs.mode} no corresponde a la petición del modelo ${kind.model}.`, data.inte.nif);
  }
  if (env.config.validateXsd) {
    const v = await env.xsd.validate('lroe', xml);
    if (!v.valid) return refuse(LROE.xsdPeticion, `El fichero no cumple el esquema XSD: ${xsdDetail(v.errors)}`, data.inte.nif);
  }
  const root = doc.documentElement;
  if (!root) return refuse(LROE.xsdPeticion, 'Sin elemento raíz.', data.inte.nif);
  const cabEl = el(root, 'Cabecera');
  const cab: LroeCabecera = {
    modelo: txt(cabEl, 'Modelo'),
    capitulo: txt(cabEl, 'Capitulo'),
    subcapitulo: txt(cabEl, 'Subcapitulo') || null,
    operacion: txt(cabEl, 'Operacion'),
    version: txt(cabEl, 'Version'),
    ejercicio: txt(cabEl, 'Ejercicio'),
    nif: txt(cabEl, 'ObligadoTributario', 'NIF'),
    nombre: txt(cabEl, 'ObligadoTributario', 'ApellidosNombreRazonSocial'),
  };
  if (cab.capitulo !== '1' || cab.subcapitulo !== '1.1') {
    return refuse(LROE.otros, `Capítulo ${cab.capitulo} / subcapítulo ${cab.subcapitulo ?? '-'} no soportado (solo 1 / 1.1, con software garante).`, cab.nif);
  }
  const wantOp = kind.op === 'alta' ? 'A00' : 'AN0';
  if (cab.operacion !== wantOp) {
    return refuse(LROE.otros, `Operacion ${cab.operacion} no corresponde a la petición (${wantOp}).`, cab.nif);
  }
  if (cab.ejercicio !== data.drs.ejer) {
    return refuse(LROE.otros, `drs.ejer ${data.drs.ejer} no coincide con Ejercicio ${cab.ejercicio}.`, cab.nif);
  }

  // Records: decode, validate every embedded file in one call to the XSD worker, read, verify.
  const [containerName, recordName] = LROE_ROOTS[kind.model][kind.op].records;
  const field = kind.op === 'alta' ? 'TicketBai' : 'AnulacionTicketBai';
  const recs: Rec[] = all(el(root, containerName), recordName).map((r) => {
    const base64 = txt(r, field).replace(/\s+/g, '');
    const raw = Buffer.from(base64, 'base64');
    if (base64 === '' || raw.length === 0) {
      return { base64, xml: null, problem: { codigo: LROE.xsdTicketBai, detail: `${field} vacío o no es base64.` }, parsed: null, sig: null };
    }
    return { base64, xml: raw.toString('utf8').replace(/^\uFEFF/, ''), problem: null, parsed: null, sig: null };
  });
  if (env.config.validateXsd) {
    const idx = recs.map((r, i) => (r.xml !== null ? i : -1)).filter((i) => i >= 0);
    const results = await env.xsd.validateMany('tbai', idx.map((i) => recs[i]!.xml!));
    idx.forEach((i, k) => {
      const v = results[k];
      if (v && !v.valid) recs[i]!.problem = { codigo: LROE.xsdTicketBai, detail: xsdDetail(v.errors) };
    });
  }
  const want = EXPECTED_ROOT[kind.op];
  let n = 0;
  for (const r of recs) {
    // Parsing and verifying ~1 ms per file: let the shared router breathe on big batches.
    if (++n % 25 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    if (r.xml === null) continue;
    let d: ReturnType<typeof parseXml>;
    try {
      d = parseXml(r.xml);
      const got = rootName(d);
      if (got.ns !== want.ns || got.name !== want.name) {
        r.problem ??= { codigo: LROE.xsdTicketBai, detail: `se esperaba {${want.ns}}${want.name}.` };
        continue;
      }
      r.parsed = parseTicketBai(d) as ParsedAlta | ParsedAnulacion;
    } catch (e) {
      r.problem ??= { codigo: LROE.xsdTicketBai, detail: e instanceof Error ? e.message.slice(0, 160) : 'XML no legible.' };
      continue;
    }
    if (!r.problem && r.parsed.nif !== cab.nif) {
      r.problem = { codigo: LROE.datoObligatorio, detail: `El NIF emisor ${r.parsed.nif} no es el obligado tributario ${cab.nif}.` };
    }
    if (!r.problem && env.config.verifySignature) r.sig = verifyTicketBaiSignature(r.xml, env.config.policies, d);
  }

  const outcomes: Outcome[] = env.ledger.transaction(() =>
    recs.map((r, i) => {
      const ctx: RecordCtx = {
        provincia: 'bizkaia',
        ledger: env.ledger,
        faults: env.faults,
        config: env.config,
        dialect: LROE_DIALECT,
        at,
        submissionId,
        line: i + 1,
        csv: null,
      };
      const service: TbaiService = kind.op;
      if (!r.parsed || (r.problem && r.problem.codigo === LROE.xsdTicketBai)) {
        return rejectUnread(ctx, service, r.problem ?? { codigo: LROE.xsdTicketBai }, {
          nif: r.parsed?.nif ?? null,
          signatureValue: r.parsed?.signatureValue ?? '',
          device: r.parsed?.device ?? '',
        });
      }
      return r.parsed.kind === 'alta'
        ? processAlta(ctx, r.parsed, r.sig, { rejection: r.problem })
        : processAnulacion(ctx, r.parsed, r.sig, { rejection: r.problem });
    }),
  );

  const registros: LroeRegistro[] = outcomes.map((o, i) => {
    const r = recs[i]!;
    const code = o.rejection ?? o.warnings[0] ?? null;
    const text = code ? lroeText(code.codigo, code.detail) : null;
    return {
      id: r.parsed ? { serie: r.parsed.serie, num: r.parsed.num, fecha: r.parsed.fecha } : { base64: r.base64 },
      estado: o.estado as EstadoRegistro,
      codigo: code?.codigo ?? null,
      es: text?.es ?? null,
      eu: text?.eu ?? null,
    };
  });
  const allOk = registros.every((r) => r.estado === 'Correcto');
  const allBad = registros.every((r) => r.estado === 'Incorrecto');
  const tipo = allOk ? 'Correcto' : allBad ? 'Incorrecto' : 'ParcialmenteCorrecto';
  const codigo = allBad ? LROE.todosIncorrectos : '';
  const mensaje = allBad ? lroeText(LROE.todosIncorrectos).es : allOk ? '' : 'ParcialmenteCorrecto';
  const presentador = certNif(req) ?? data.inte.nif;
  const xmlOut = lroeResponseXml(kind.model, kind.op, cab, allBad ? null : { fecha: fechaHora(now), nif: presentador }, registros);
  env.ledger.finishSubmission({
    id: submissionId,
    nif: cab.nif,
    outcome: 'processed',
    recordCount: recs.length,
    estado: tipo,
    codigo: codigo || null,
    mensaje: mensaje || null,
    csv: null,
    identificativo,
    processMs: performance.now() - t0,
  });
  return headerReply(tipo, codigo, mensaje, identificativo, gzipSync(Buffer.from(xmlOut, 'utf8')));
}

/** The `malformed` fault for LROE: the headers of the answer and a gzipped, truncated XML. */
export function malformedLroe(processed: Reply | null): Reply {
  let xml =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<ns2:LROEPJ240FacturasEmitidasConSGAltaRespuesta xmlns:ns2="x">\n    <Cabecera>\n        <Modelo>';
  if (processed && Buffer.isBuffer(processed.body) && processed.body.length > 0) {
    try {
      xml = gunzipSync(processed.body).toString('utf8');
    } catch {
      /* keep the stub */
    }
  }
  const cut = cutAnswer(xml);
  return {
    status: 200,
    headers: {
      ...(processed?.headers ?? {
        'content-type': LROE_RESPONSE_CT,
        'eus-bizkaia-n3-tipo-respuesta': 'Correcto',
        'eus-bizkaia-n3-identificativo': '0',
        'eus-bizkaia-n3-codigo-respuesta': '',
      }),
      'content-encoding': 'gzip',
    },
    body: gzipSync(Buffer.from(cut, 'utf8')),
  };
}
