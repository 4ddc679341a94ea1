import type { EstadoNif, ResultadoNif } from '../../../src-shared/api/nif';
import { validateNif } from '../../../src-shared/nif';
import type { Database } from '../db/database';
import type { Clock } from '../platform/clock';
import type { Logger } from '../platform/logger';
import type { CensusConfig } from './config';
import { CensusUnavailable, SoapCensusClient, type CensusAnswer, type CensusClient, type CensusQuery } from './client';
import { CensusVerdictStore, type CachedVerdict } from './store';
import { estadoFromLabel, isConclusive, nombreCenso, nombreClave } from './verdicts';

/** What an issuer client stores in `validacionCensal`. */
export interface ValidacionCensal {
  estado: EstadoNif;
  nombreCenso: string | null;
  /** Absent only for an issuer never checked (registered before the client lifecycle). */
  validadoEn?: string;
  resultadoAeat?: string;
}

export interface CensusOutcome {
  /** One per entry that could be resolved, in request order (all of them unless `unavailable`). */
  resultados: ResultadoNif[];
  /** True when the census could not be reached and some entry stayed without a verdict. */
  unavailable: boolean;
}

type Planned =
  | { kind: 'resolved'; result: ResultadoNif }
  | { kind: 'query'; nif: string; clave: string; stale: CachedVerdict | undefined };

/**
 * NIF checks against the census, with a local verdict cache: fresh verdicts are answered from the
 * cache; the rest go to the census in one request; when the census is unreachable, an older
 * cached verdict still resolves its entry (its `validadoEn` tells how old it is).
 */
export class CensusService {
  readonly cache: CensusVerdictStore;
  private client: CensusClient;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly config: CensusConfig,
    client?: CensusClient,
  ) {
    this.cache = new CensusVerdictStore(db);
    this.client = client ?? new SoapCensusClient({ url: config.url, timeoutMs: config.timeoutMs, ...(config.tls ? { tls: config.tls } : {}) });
  }

  async validate(entries: readonly { nif: string; nombre: string }[]): Promise<CensusOutcome> {
    const now = this.clock.now();
    const freshFrom = now.getTime() - this.config.cacheTtlMs;
    const plan: Planned[] = entries.map((entry) => {
      const check = validateNif(entry.nif);
      if (!check.valid) {
        // Never queried: the verdict is local and of this instant.
        return { kind: 'resolved', result: { nif: entry.nif, nombre: entry.nombre, estado: 'formato_invalido', nombreCenso: null, validadoEn: now.toISOString() } };
      }
      const clave = nombreClave(check.normalized, entry.nombre);
      const cached = this.cache.get(check.normalized, clave);
      if (cached && Date.parse(cached.validadoEn) >= freshFrom) {
        return { kind: 'resolved', result: fromCache(entry, cached) };
      }
      return { kind: 'query', nif: check.normalized, clave, stale: cached };
    });

    const queries: CensusQuery[] = [];
    const seen = new Map<string, number>();
    plan.forEach((p, i) => {
      if (p.kind !== 'query') return;
      const key = `${p.nif}\n${p.clave}`;
      if (!seen.has(key)) {
        seen.set(key, queries.length);
        queries.push({ nif: p.nif, nombre: entries[i]?.nombre ?? '' });
      }
    });
    if (queries.length === 0) return { resultados: plan.map((p) => (p as { result: ResultadoNif }).result), unavailable: false };

    const queriedAt = this.clock.now().toISOString();
    let answers: (CensusAnswer | undefined)[] | undefined;
    try {
      answers = matchAnswers(queries, await this.client.check(queries));
    } catch (error) {
      if (!(error instanceof CensusUnavailable)) throw error;
      this.logger.warn('census unavailable', { error: error.message, entries: queries.length });
    }

    if (answers) {
      const received = answers;
      this.db.transaction(() => {
        queries.forEach((q, i) => {
          const a = received[i];
          if (!a) return;
          const estado = estadoFromLabel(a.resultado);
          if (!isConclusive(estado)) return;
          this.cache.put({
            nif: q.nif,
            nombreClave: nombreClave(q.nif, q.nombre),
            estado,
            resultadoAeat: a.resultado.trim().toUpperCase(),
            nombreRespuesta: a.nombre,
            validadoEn: queriedAt,
          });
        });
      });
    }

    let unavailable = false;
    const resultados: ResultadoNif[] = [];
    plan.forEach((p, i) => {
      const entry = entries[i] ?? { nif: '', nombre: '' };
      if (p.kind === 'resolved') {
        resultados.push(p.result);
        return;
      }
      if (!answers) {
        if (p.stale) resultados.push(fromCache(entry, p.stale));
        else unavailable = true;
        return;
      }
      const answer = answers[seen.get(`${p.nif}\n${p.clave}`) ?? -1];
      if (!answer) {
        // Omitted by the census: not an error, retry later.
        resultados.push({ nif: entry.nif, nombre: entry.nombre, estado: 'no_procesado', nombreCenso: null, validadoEn: queriedAt });
        return;
      }
      const estado = estadoFromLabel(answer.resultado);
      resultados.push({
        nif: entry.nif,
        nombre: entry.nombre,
        estado,
        resultadoAeat: answer.resultado.trim().toUpperCase(),
        nombreCenso: nombreCenso(estado, entry.nombre, answer.nombre),
        validadoEn: queriedAt,
      });
    });
    return { resultados, unavailable };
  }

  /** The check an issuer client stores in `validacionCensal`: never throws, never blocks. */
  async checkForIssuer(nif: string, nombre: string): Promise<ValidacionCensal> {
    try {
      const { resultados } = await this.validate([{ nif, nombre }]);
      const r = resultados[0];
      if (r) return toValidacion(r);
    } catch (error) {
      this.logger.warn('census check of an issuer failed', { error: (error as Error).message });
    }
    return { estado: 'no_procesado', nombreCenso: null, validadoEn: this.clock.now().toISOString() };
  }

  /** A verdict from the cache only (no query), for a stored `no_procesado` to catch up. */
  cachedVerdict(nif: string, nombre: string): ValidacionCensal | undefined {
    const cached = this.cache.get(nif, nombreClave(nif, nombre));
    return cached ? toValidacion(fromCache({ nif, nombre }, cached)) : undefined;
  }
}

function fromCache(entry: { nif: string; nombre: string }, cached: CachedVerdict): ResultadoNif {
  const estado = cached.estado as EstadoNif;
  return {
    nif: entry.nif,
    nombre: entry.nombre,
    estado,
    resultadoAeat: cached.resultadoAeat,
    nombreCenso: nombreCenso(estado, entry.nombre, cached.nombreRespuesta),
    validadoEn: cached.validadoEn,
  };
}

function toValidacion(r: ResultadoNif): ValidacionCensal {
  return {
    estado: r.estado,
    nombreCenso: r.nombreCenso,
    validadoEn: r.validadoEn,
    ...(r.resultadoAeat !== undefined ? { resultadoAeat: r.resultadoAeat } : {}),
  };
}

/**
 * Pairs the census's answers with the queries: by NIF, and among queries of the same NIF (a person
 * checked under two names) in the order sent. An omitted entry leaves its query without answer.
 */
function matchAnswers(queries: readonly CensusQuery[], answers: readonly CensusAnswer[]): (CensusAnswer | undefined)[] {
  const byNif = new Map<string, CensusAnswer[]>();
  for (const a of answers) {
    const nif = a.nif.trim().toUpperCase();
    const list = byNif.get(nif) ?? [];
    list.push(a);
    byNif.set(nif, list);
  }
  return queries.map((q) => byNif.get(q.nif)?.shift());
}
