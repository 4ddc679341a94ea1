import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CensusDirectory, Taxpayer } from '../census-data';
import { BodyTooLargeError, readBody, sendJson, sendText } from '../http-util';
import type { EmulatorRouter, SubHandler } from '../router';
import { serveFaults } from '../common/control';
import { Parking } from '../common/transport';
import { CensusFaults, CensusFaultsPatch } from './faults';
import { matchPersonName } from './names';
import { BadRequest, buildFault, buildRespuesta, CENSUS_SOAP_PATH, parseConsulta, type Consulta, type Respuesta } from './soap';

export { CENSUS_SOAP_PATH, VNIF_ENT_NS, VNIF_SAL_NS } from './soap';
export { CensusFaults, CensusFaultsPatch } from './faults';
export type { CensusFaultState, CensusTransportMode } from './faults';
export { CENSUS_EXTRA_TAXPAYERS, CENSUS_SEED } from './seed';
export { matchPersonName, normalizeName } from './names';

/** The census's verdict labels, upper case as AEAT writes them. */
export const LABELS = {
  identificado: 'IDENTIFICADO',
  noIdentificado: 'NO IDENTIFICADO',
  similar: 'NO IDENTIFICADO-SIMILAR',
  baja: 'IDENTIFICADO-BAJA',
  revocado: 'IDENTIFICADO-REVOCADO',
  noProcesado: 'NO PROCESADO',
} as const;

/** A legal person's NIF starts with an entity letter; persons have digits, X/Y/Z or K/L/M. */
function isLegalPerson(nif: string): boolean {
  return /^[A-HJNP-SUVW]/.test(nif);
}

/**
 * The verdict for one entry. Legal persons: the queried name is ignored; the record's state gives
 * the label and `Nombre` is the official name. Natural persons: the name is part of the verdict;
 * an exact or partial name identifies (the full name comes back), a near miss is
 * NO IDENTIFICADO-SIMILAR with the name on record, anything else NO IDENTIFICADO with the name echoed.
 */
export function censusVerdict(entry: Consulta, record: Taxpayer | undefined): Respuesta {
  const nif = entry.nif.trim().toUpperCase();
  const echo = { nif: entry.nif, nombre: entry.nombre };
  if (!record) return { ...echo, resultado: LABELS.noIdentificado };
  const byState = record.estado === 'baja' ? LABELS.baja : record.estado === 'revocado' ? LABELS.revocado : LABELS.identificado;
  if (isLegalPerson(nif)) return { nif: entry.nif, nombre: record.nombre, resultado: byState };
  switch (matchPersonName(entry.nombre, record.nombre)) {
    case 'exact':
    case 'partial':
      return { nif: entry.nif, nombre: record.nombre, resultado: byState };
    case 'similar':
      return { nif: entry.nif, nombre: record.nombre, resultado: LABELS.similar };
    case 'none':
      return { ...echo, resultado: LABELS.noIdentificado };
  }
}

export interface CensusServiceStats {
  /** SOAP requests answered (or broken by a fault). */
  requests: number;
  /** Contribuyente entries received. */
  entries: number;
}

export interface CensusServiceEmulator {
  readonly faults: CensusFaults;
  readonly directory: CensusDirectory;
  stats(): CensusServiceStats;
  /** Clears faults and counters (the directory is reset by DELETE /__control/census). */
  reset(): void;
  close(): void;
}

/**
 * The AEAT-like NIF check service over the shared census directory, mounted on the emulators'
 * router: SOAP at CENSUS_SOAP_PATH (see soap.ts for the wire format), fault and counter control
 * at `/__control/census/faults` (GET, PUT, DELETE) and `/__control/census/stats` (GET, DELETE).
 */
export function createCensusEmulator(opts: { router: EmulatorRouter; directory: CensusDirectory }): CensusServiceEmulator {
  const { directory } = opts;
  const faults = new CensusFaults();
  const counters: CensusServiceStats = { requests: 0, entries: 0 };
  const parking = new Parking();

  const xml = (res: ServerResponse, status: number, text: string) => {
    if (res.destroyed || res.writableEnded) return;
    sendText(res, status, 'text/xml; charset=UTF-8', text);
  };

  const answer = (consultas: Consulta[]): string =>
    buildRespuesta(
      consultas
        .filter((c) => !faults.omits(c.nif))
        .map((c) =>
          faults.unprocessed(c.nif)
            ? { nif: c.nif, nombre: c.nombre, resultado: LABELS.noProcesado }
            : censusVerdict(c, directory.get(c.nif)),
        ),
    );

  const soap: SubHandler = {
    prefix: '/wlpl/BURT-JDIT/ws/',
    owner: 'census',
    async handle(req: IncomingMessage, res: ServerResponse, path: string) {
      if (path !== CENSUS_SOAP_PATH) return sendText(res, 404, 'text/plain', 'Not Found');
      if (req.method !== 'POST') return sendText(res, 405, 'text/plain', 'Method Not Allowed');
      counters.requests += 1;
      const fault = faults.takeTransport();
      if (fault?.mode === 'down') {
        req.socket.destroy();
        return;
      }
      if (fault?.mode === 'timeout') return parking.hold(res);
      let body: Buffer;
      try {
        body = await readBody(req, 8 * 1024 * 1024);
      } catch (error) {
        if (error instanceof BodyTooLargeError) return xml(res, 413, buildFault('env:Client', 'Petición demasiado grande'));
        throw error;
      }
      if (fault?.mode === 'slow') await parking.sleep(fault.delayMs);
      if (fault?.mode === 'http500') return sendText(res, 500, 'text/html', '<html><body>500 Internal Server Error</body></html>');
      if (fault?.mode === 'serverFault') return xml(res, 500, buildFault('env:Server', 'Servicio no disponible temporalmente'));
      let consultas: Consulta[];
      try {
        consultas = parseConsulta(body.toString('utf8'));
      } catch (error) {
        if (error instanceof BadRequest) return xml(res, 500, buildFault('env:Client', error.message));
        throw error;
      }
      counters.entries += consultas.length;
      const text = answer(consultas);
      if (fault?.mode === 'malformed') return xml(res, 200, text.slice(0, Math.floor(text.length / 2)));
      xml(res, 200, text);
    },
  };

  const control: SubHandler = {
    prefix: '/__control/census/',
    owner: 'census',
    async handle(req, res, path) {
      const sub = path.slice('/__control/census/'.length).replace(/\/+$/, '');
      const method = req.method ?? 'GET';
      if (sub === 'faults') {
        if (await serveFaults(req, res, faults, CensusFaultsPatch)) return;
      } else if (sub === 'stats') {
        if (method === 'GET') return sendJson(res, 200, { ...counters });
        if (method === 'DELETE') {
          counters.requests = 0;
          counters.entries = 0;
          return sendJson(res, 200, { ...counters });
        }
      }
      sendJson(res, 404, { error: 'not_found', path });
    },
  };

  opts.router.mount(soap);
  opts.router.mount(control);

  return {
    faults,
    directory,
    stats: () => ({ ...counters }),
    reset() {
      faults.reset();
      counters.requests = 0;
      counters.entries = 0;
    },
    close() {
      parking.release();
    },
  };
}
