import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import {
  dispositivoEnvelopeSchema,
  dispositivosResponseSchema,
  liberarSerieResponseSchema,
  promoverBodySchema,
  promoverResponseSchema,
  registrarDispositivoBodySchema,
  reservarSeriesBodySchema,
  reservarSeriesResponseSchema,
  serieReservableSchema,
  solicitarActivacionResponseSchema,
} from '../../../src-shared/api/dispositivos';
import { idMaquina } from '../../../src-shared/primitives';
import { callerOf } from '../core/caller';
import type { DeviceService } from './service';
import { dispositivoView } from './views';

const nifParam = z.object({ nif: z.string() });
const BASE = '/v1/clientes/:nif/dispositivos';

/** Devices on the management API (spec: Devices). The environment comes from the key. */
export function deviceRoutes(app: FastifyInstance, deps: { devices: DeviceService }): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { devices } = deps;

  api.get(
    BASE,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Dispositivos, series reclamadas y estado del modo de alta capacidad',
        params: nifParam,
        response: { 200: dispositivosResponseSchema },
      },
    },
    async (request) => devices.status(callerOf(request), request.params.nif),
  );

  api.post(
    BASE,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Registrar un dispositivo (201), o reactivar uno dado de baja (200, reactivado: true)',
        params: nifParam,
        body: registrarDispositivoBodySchema,
        response: { 200: dispositivoEnvelopeSchema, 201: dispositivoEnvelopeSchema },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const { idMaquina, etiqueta } = request.body;
      // An empty label is no label (a reactivation keeps the one it had).
      const { status, device } = devices.register(caller, request.params.nif, { idMaquina, ...(etiqueta ? { etiqueta } : {}) });
      return reply.code(status).send({
        message: status === 201 ? 'Dispositivo registrado' : 'Dispositivo reactivado',
        entorno: caller.entorno,
        dispositivo: dispositivoView(device),
        ...(status === 200 ? { reactivado: true as const } : {}),
      });
    },
  );

  api.delete(
    `${BASE}/:idMaquina`,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Dar de baja un dispositivo (idempotente; conserva la primera fecha de baja)',
        params: z.object({ nif: z.string(), idMaquina }),
        response: { 200: dispositivoEnvelopeSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const device = devices.deactivate(caller, request.params.nif, request.params.idMaquina);
      return { message: 'Dispositivo dado de baja', entorno: caller.entorno, dispositivo: dispositivoView(device) };
    },
  );

  api.post(
    `${BASE}/promover`,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Copiar dispositivos de TEST a LIVE (identificador y etiqueta; con la clave de cualquier entorno)',
        params: nifParam,
        body: promoverBodySchema,
        response: { 200: promoverResponseSchema },
      },
    },
    async (request) => {
      const result = devices.promote(callerOf(request), request.params.nif, request.body?.idsMaquina);
      return {
        message: `${result.creados.length} dispositivo(s) copiados a LIVE`,
        origen: 'test' as const,
        entorno: 'live' as const,
        ...result,
      };
    },
  );

  api.post(
    `${BASE}/solicitar-activacion`,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Avisar de que la preparación ha terminado (solo en fase preparacion; cuenta la primera llamada)',
        params: nifParam,
        response: { 200: solicitarActivacionResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const solicitadoEn = devices.requestActivation(caller, request.params.nif);
      return { message: 'Activación solicitada', entorno: caller.entorno, solicitadoEn };
    },
  );

  api.post(
    `${BASE}/series-centralizadas`,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Reservar series para el envío centralizado (__SHARD0__); idempotente',
        params: nifParam,
        body: reservarSeriesBodySchema,
        response: { 200: reservarSeriesResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const result = devices.reserve(caller, request.params.nif, request.body.series);
      return { message: `${result.reservadas.length} serie(s) reservadas`, entorno: caller.entorno, ...result };
    },
  );

  api.delete(
    `${BASE}/series-centralizadas/:serie`,
    {
      schema: {
        tags: ['dispositivos'],
        summary: 'Liberar una reserva (solo en fase preparacion; la serie va codificada en la ruta, %2F para /)',
        params: z.object({ nif: z.string(), serie: serieReservableSchema }),
        response: { 200: liberarSerieResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      devices.release(caller, request.params.nif, request.params.serie);
      return { message: 'Reserva liberada', entorno: caller.entorno, serie: request.params.serie };
    },
  );
}
