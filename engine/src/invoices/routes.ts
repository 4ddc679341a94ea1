import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  estadoFacturaResponseSchema,
  estadoFacturaSchema,
  facturaEnvelopeSchema,
  facturaQuerySchema,
  facturasBuscarQuerySchema,
  facturasListQuerySchema,
  facturasListResponseSchema,
  registroDetalleSchema,
  registroQuerySchema,
  registrosListQuerySchema,
  registrosListResponseSchema,
} from '../../../src-shared/api/facturas';
import { sistemaFiscalSchema } from '../../../src-shared/api/common';
import { esFechaReal, fechaDdMmAaaa } from '../../../src-shared/primitives';
import type { Issuer, IssuerStore } from '../clients/store';
import { callerOf, type Caller } from '../core/caller';
import { forbidden, invalidParameter, missingParameter, notFound, validation } from '../core/errors';
import { parseBillingLimite, type CursorCodec } from '../core/pagination';
import type { Clock } from '../platform/clock';
import { madridParts } from '../platform/madrid-calendar';
import { qrPng } from '../qr/png';
import type { bloqueoEnvioSchema } from '../../../src-shared/api/facturas';
import type { InvoiceRow, InvoiceStore, RegistroRow } from './store';
import { estadoLeido, estadoView, facturaDetalle, facturaListItem, registroDetalle, registroView } from './views';

/** Why a submission waits for a person (submission/blocked.ts). */
type BloqueoEnvio = z.infer<typeof bloqueoEnvioSchema>;

export interface ReadDeps {
  invoices: InvoiceStore;
  issuers: IssuerStore;
  cursors: CursorCodec;
  clock: Clock;
  billingUrl: () => string;
  /** Why the invoice's submission is held back waiting for a person (AEAT 4104…), if it is. */
  bloqueoDeFactura?: (invoiceId: string) => BloqueoEnvio | undefined;
}

const idParam = z.object({ idFactura: z.string() });

function required<Q extends Record<string, string | undefined>>(q: Q, name: keyof Q & string): string {
  const value = q[name];
  if (value === undefined || value === '') throw validation(name, `${name} es obligatorio`);
  return value;
}

/** A read needs an issuer of the caller's account in the key's environment: else 403. */
function readableIssuer(issuers: IssuerStore, caller: Caller, nif: string): Issuer {
  const issuer = issuers.findForAccount(caller.account.id, caller.entorno, nif);
  if (!issuer) throw forbidden();
  return issuer;
}

/** The instant Madrid's wall clock reads `wall` (a wall time coded as UTC); a time in the spring-forward gap is read as UTC+1. */
function madridWallTime(wall: number): number {
  const w = new Date(wall);
  // Madrid is UTC+1 or UTC+2: keep the offset at which Madrid's clock reads that wall time.
  for (const offsetHours of [2, 1]) {
    const p = madridParts(new Date(wall - offsetHours * 3_600_000));
    if (p.day === w.getUTCDate() && p.hour === w.getUTCHours() && p.minute === w.getUTCMinutes()) {
      return wall - offsetHours * 3_600_000;
    }
  }
  return wall - 3_600_000;
}

const ISO_FECHA_HORA = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A `fechaInicio`/`fechaFin` bound as an ISO instant. The tills' calendar is Madrid's: a date
 * alone is a Madrid day (from its 00:00 to its last millisecond, whatever the offset that day),
 * and a date-time without offset is Madrid wall time.
 */
function isoBound(value: string, campo: string, end: boolean): string {
  const invalid = () => validation(campo, `${campo} debe ser una fecha ISO 8601`);
  const fecha = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!fecha || !esFechaReal(Number(fecha[3]), Number(fecha[2]), Number(fecha[1]))) throw invalid();
  if (value.length === 10) {
    const dia = Date.UTC(Number(fecha[1]), Number(fecha[2]) - 1, Number(fecha[3]));
    return new Date(end ? madridWallTime(dia + 86_400_000) - 1 : madridWallTime(dia)).toISOString();
  }
  const m = ISO_FECHA_HORA.exec(value);
  const conZona = m?.[3] !== undefined;
  const parsed = Date.parse(conZona ? value : `${value}Z`);
  if (!m || Number.isNaN(parsed)) throw invalid();
  return new Date(conZona ? parsed : madridWallTime(parsed)).toISOString();
}

/** Invoice and record reads of the billing API. */
export function invoiceReadRoutes(app: FastifyInstance, deps: ReadDeps): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  const invoiceFor = (request: FastifyRequest, idFactura: string, q: { nifEmisor?: string | undefined }) => {
    const caller = callerOf(request);
    const issuer = readableIssuer(deps.issuers, caller, required(q, 'nifEmisor'));
    const invoice = deps.invoices.getInvoice(idFactura);
    if (!invoice || invoice.accountId !== caller.account.id || invoice.entorno !== caller.entorno || invoice.nifEmisor !== issuer.nif) {
      throw notFound('Factura no encontrada');
    }
    return invoice;
  };

  const envelope = (invoice: InvoiceRow) => {
    const rows = deps.invoices.registrosOf(invoice.id);
    const registros = rows.map((r) => registroDetalle(r, invoice, estadoLeido(r, rows), rows));
    const { datos } = deps.invoices.invoiceDocs(invoice.id);
    return { factura: facturaDetalle(invoice, deps.billingUrl(), datos), registros, totalRegistros: registros.length };
  };

  api.get(
    '/v1/facturas',
    { schema: { tags: ['facturas'], summary: 'Facturas de un emisor', querystring: facturasListQuerySchema, response: { 200: facturasListResponseSchema } } },
    async (request) => {
      const caller = callerOf(request);
      const q = request.query;
      const issuer = readableIssuer(deps.issuers, caller, required(q, 'nifEmisor'));
      const limit = parseBillingLimite(q.limite);
      const filtros: Record<string, string> = {};
      const desde = q.fechaInicio ? isoBound(q.fechaInicio, 'fechaInicio', false) : undefined;
      const hasta = q.fechaFin ? isoBound(q.fechaFin, 'fechaFin', true) : undefined;
      if (q.fechaInicio) filtros.fechaInicio = q.fechaInicio;
      if (q.fechaFin) filtros.fechaFin = q.fechaFin;
      let estado: z.infer<typeof estadoFacturaSchema> | undefined;
      if (q.estado) {
        const parsed = estadoFacturaSchema.safeParse(q.estado);
        if (!parsed.success) throw validation('estado', 'estado debe ser registrada, anulada o rectificada');
        estado = parsed.data;
        filtros.estado = q.estado;
      }
      let sistemaFiscal: 'verifactu' | 'ticketbai' | undefined;
      if (q.sistemaFiscal) {
        const parsed = sistemaFiscalSchema.safeParse(q.sistemaFiscal);
        if (!parsed.success) throw validation('sistemaFiscal', 'sistemaFiscal debe ser verifactu o ticketbai');
        sistemaFiscal = parsed.data;
        filtros.sistemaFiscal = q.sistemaFiscal;
      }
      const scope = { accountId: caller.account.id, endpoint: 'facturas', entorno: caller.entorno, nifEmisor: issuer.nif };
      const now = deps.clock.now();
      const after = q.cursor ? deps.cursors.decode(q.cursor, scope, now) : undefined;
      // One row beyond the page tells whether another page exists without counting the table.
      const rows = deps.invoices.listInvoices({ entorno: caller.entorno, nifEmisor: issuer.nif, desde, hasta, estadoFactura: estado, sistemaFiscal, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        facturas: page.map((row) => facturaListItem(row, deps.billingUrl())),
        total: page.length,
        nifEmisor: issuer.nif,
        nombreEmisor: issuer.nombre,
        proximaPagina: rows.length > limit && last ? deps.cursors.encode({ creadoEn: last.creadoEn, id: last.id }, scope, now) : null,
        ...(Object.keys(filtros).length > 0 ? { filtros } : {}),
      };
    },
  );

  api.get(
    '/v1/facturas/buscar',
    { schema: { tags: ['facturas'], summary: 'Buscar por serie, número y fecha', querystring: facturasBuscarQuerySchema, response: { 200: facturaEnvelopeSchema } } },
    async (request) => {
      const caller = callerOf(request);
      const q = request.query;
      const issuer = readableIssuer(deps.issuers, caller, required(q, 'nifEmisor'));
      if (!q.numero) throw missingParameter('numero');
      if (!q.fechaExpedicion) throw missingParameter('fechaExpedicion');
      if (q.numero.length > 60) throw validation('numero', 'numero admite como máximo 60 caracteres');
      if (q.serie !== undefined && q.serie.length > 60) throw validation('serie', 'serie admite como máximo 60 caracteres');
      if (!fechaDdMmAaaa.safeParse(q.fechaExpedicion).success) {
        throw validation('fechaExpedicion', 'fechaExpedicion debe ser dd-mm-aaaa');
      }
      const invoice = deps.invoices.findByIdentity({
        entorno: caller.entorno,
        nifEmisor: issuer.nif,
        serie: q.serie ?? '',
        numero: q.numero,
        fechaExpedicion: q.fechaExpedicion,
      });
      if (!invoice || invoice.accountId !== caller.account.id) throw notFound('Factura no encontrada');
      return envelope(invoice);
    },
  );

  api.get(
    '/v1/facturas/:idFactura',
    { schema: { tags: ['facturas'], summary: 'Detalle de factura', params: idParam, querystring: facturaQuerySchema, response: { 200: facturaEnvelopeSchema } } },
    async (request) => envelope(invoiceFor(request, request.params.idFactura, request.query)),
  );

  api.get(
    '/v1/facturas/:idFactura/estado',
    { schema: { tags: ['facturas'], summary: 'Estado (sondeo)', params: idParam, querystring: facturaQuerySchema, response: { 200: estadoFacturaResponseSchema } } },
    async (request) => {
      const invoice = invoiceFor(request, request.params.idFactura, request.query);
      const view = estadoView(invoice);
      // Still in flight and held back by a fault only a person can fix: said, with what to do.
      const bloqueo = invoice.estadoFactura === null ? deps.bloqueoDeFactura?.(invoice.id) : undefined;
      return bloqueo ? { ...view, bloqueoEnvio: bloqueo } : view;
    },
  );

  api.get(
    '/v1/facturas/:idFactura/qr',
    {
      schema: {
        tags: ['facturas'],
        summary: 'QR en PNG (Accept: image/png); application/json da {qrBase64, urlValidacion}',
        params: idParam,
        querystring: facturaQuerySchema,
        'x-respuestas-doc': {
          200: {
            description: 'Accept: image/png → los bytes PNG; */* o ninguno → el PNG en base64, anunciado como image/png',
            content: {
              'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { qrBase64: { type: 'string', contentEncoding: 'base64' }, urlValidacion: { type: 'string' } },
                  required: ['qrBase64', 'urlValidacion'],
                },
              },
            },
          },
        },
      },
    },
    async (request, reply) => {
      const invoice = invoiceFor(request, request.params.idFactura, request.query);
      if (!invoice.urlValidacion) throw notFound('La factura no tiene URL de validación');
      const png = qrPng(invoice.urlValidacion);
      const accept = request.headers.accept ?? '';
      if (accept.includes('image/png')) return reply.type('image/png').send(png);
      if (accept.includes('application/json')) {
        return reply.type('application/json').send({ qrBase64: png.toString('base64'), urlValidacion: invoice.urlValidacion });
      }
      // As the spec describes the hosted service: base64 text announced as image/png.
      return reply.type('image/png').send(png.toString('base64'));
    },
  );

  api.get(
    '/v1/facturas/:idFactura/xml',
    {
      schema: {
        tags: ['facturas'],
        summary: 'XML del registro enviado a la administración',
        params: idParam,
        querystring: facturaQuerySchema,
        'x-respuestas-doc': {
          200: {
            description: 'El documento XML tal como se envía a la administración',
            content: { 'application/xml': { schema: { type: 'string', contentMediaType: 'application/xml' } } },
          },
        },
      },
    },
    async (request, reply) => {
      const invoice = invoiceFor(request, request.params.idFactura, request.query);
      const registro = deps.invoices.latestRegistro(invoice.id, ['alta', 'subsanacion']) ?? deps.invoices.latestRegistro(invoice.id, ['anulacion']);
      const stored = registro ? deps.invoices.registroXml(registro.id) : undefined;
      if (!stored) throw notFound('XML no disponible');
      const xml = stored.startsWith('<?xml') ? stored : `<?xml version="1.0" encoding="UTF-8"?>\n${stored}`;
      return reply.type('application/xml; charset=utf-8').send(xml);
    },
  );

  api.get(
    '/v1/registros',
    { schema: { tags: ['registros'], summary: 'Registros de un emisor (más recientes primero)', querystring: registrosListQuerySchema, response: { 200: registrosListResponseSchema } } },
    async (request) => {
      const caller = callerOf(request);
      const q = request.query;
      const issuer = readableIssuer(deps.issuers, caller, required(q, 'nifEmisor'));
      const limit = parseBillingLimite(q.limite);
      const scope = { accountId: caller.account.id, endpoint: 'registros', entorno: caller.entorno, nifEmisor: issuer.nif };
      const now = deps.clock.now();
      const after = q.cursor ? deps.cursors.decode(q.cursor, scope, now) : undefined;
      const rows = deps.invoices.listRegistros({ entorno: caller.entorno, nifEmisor: issuer.nif, after, limit: limit + 1 });
      const page = rows.slice(0, limit);
      const numeros = new Map<string, string>();
      const numeroOf = (invoiceId: string) => {
        let n = numeros.get(invoiceId);
        if (n === undefined) {
          n = deps.invoices.getInvoice(invoiceId)?.numeroFactura ?? '';
          numeros.set(invoiceId, n);
        }
        return n;
      };
      // Only a pending record can read `procesando`: the others need no look at their invoice.
      const delaFactura = new Map<string, RegistroRow[]>();
      const estadoOf = (r: RegistroRow) => {
        if (r.estado !== 'pendiente') return r.estado;
        let rows = delaFactura.get(r.invoiceId);
        if (rows === undefined) {
          rows = deps.invoices.registrosOf(r.invoiceId);
          delaFactura.set(r.invoiceId, rows);
        }
        return estadoLeido(r, rows);
      };
      const last = page[page.length - 1];
      return {
        registros: page.map((r) => registroView(r, numeroOf(r.invoiceId), estadoOf(r))),
        total: page.length,
        nifEmisor: issuer.nif,
        nombreEmisor: issuer.nombre,
        proximaPagina: rows.length > limit && last ? deps.cursors.encode({ creadoEn: last.creadoEn, id: last.id }, scope, now) : null,
      };
    },
  );

  api.get(
    '/v1/registros/:idRegistro',
    {
      schema: {
        tags: ['registros'],
        summary: 'Detalle de registro (nifEmisor e idFactura obligatorios)',
        params: z.object({ idRegistro: z.string() }),
        querystring: registroQuerySchema,
        response: { 200: registroDetalleSchema },
      },
    },
    async (request) => {
      const q = request.query;
      required(q, 'nifEmisor');
      const idFactura = required(q, 'idFactura');
      const invoice = invoiceFor(request, idFactura, q);
      const registro = deps.invoices.getRegistro(request.params.idRegistro);
      if (!registro || registro.invoiceId !== invoice.id) {
        throw invalidParameter('idRegistro', 'idRegistro no reconocido');
      }
      const rows = deps.invoices.registrosOf(invoice.id);
      return registroDetalle(registro, invoice, estadoLeido(registro, rows), rows);
    },
  );

  api.get(
    '/v1/registros/:idRegistro/xml',
    {
      schema: {
        tags: ['registros'],
        summary:
          'XML firmado de un registro (alta, subsanación o anulación) tal como se envía a la administración; nifEmisor e idFactura obligatorios',
        params: z.object({ idRegistro: z.string() }),
        querystring: registroQuerySchema,
        'x-respuestas-doc': {
          200: {
            description: 'El documento XML del registro tal como se envía a la administración',
            content: { 'application/xml': { schema: { type: 'string', contentMediaType: 'application/xml' } } },
          },
        },
      },
    },
    async (request, reply) => {
      // Every record's XML, a cancellation's too (…/facturas/{id}/xml serves the registration).
      const q = request.query;
      required(q, 'nifEmisor');
      const invoice = invoiceFor(request, required(q, 'idFactura'), q);
      const registro = deps.invoices.getRegistro(request.params.idRegistro);
      if (!registro || registro.invoiceId !== invoice.id) throw invalidParameter('idRegistro', 'idRegistro no reconocido');
      const stored = deps.invoices.registroXml(registro.id);
      if (!stored) throw notFound('XML no disponible');
      const xml = stored.startsWith('<?xml') ? stored : `<?xml version="1.0" encoding="UTF-8"?>\n${stored}`;
      return reply.type('application/xml; charset=utf-8').send(xml);
    },
  );
}
