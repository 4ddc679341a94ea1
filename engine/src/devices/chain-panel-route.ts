import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { entornoSchema } from '../../../src-shared/api/common';
import { normalizeNif } from '../../../src-shared/nif';
import { deviceChainKey, issuerChainKey, type ChainRegimen } from './chain-keys';

/** GET /panel/v1/cadena: the chain a till's records go to, as its settings screen shows it. */
export const cadenaCajaSchema = z.object({
  /** true: the device's own chain (phase activa); false: the issuer's single chain. */
  propia: z.boolean(),
  sistemaFiscal: z.enum(['verifactu', 'ticketbai']),
  /** Records chained so far (0: nothing issued yet on it). */
  longitud: z.number().int(),
  /** The last link (VeriFactu huella, TicketBAI signature value); null while the chain is empty. */
  ultimaHuella: z.string().nullable(),
  /** When the till (idMaquina) last issued a record for this issuer, in any phase: staff tell tills apart by it. */
  ultimaVentaEn: z.string().nullable().optional(),
});

const querySchema = z.object({ entorno: entornoSchema, nif: z.string().min(1), idMaquina: z.string().min(1).max(64).optional() });

/** VeriFactu keeps the previous record's identity with its huella (JSON); TicketBAI the signature value. */
function ultimoEslabon(lastLink: string): string {
  try {
    const parsed: unknown = JSON.parse(lastLink);
    if (parsed && typeof parsed === 'object' && 'huella' in parsed && typeof parsed.huella === 'string') return parsed.huella;
  } catch {
    // Not JSON: the link is the value itself.
  }
  return lastLink;
}

/** What the route reads of the ledger (invoices/store.ts InvoiceStore). */
export interface ChainHeads {
  chainHeads(chainKeys: readonly string[]): { chainKey: string; length: number; lastLink: string }[];
  /** When the till's last record was generated, if it has any. */
  lastRecordAt(entorno: 'test' | 'live', nifEmisor: string, idMaquina: string): string | null;
}

/**
 * The till's chain for its settings screen: the device's own chain when it has one, else the
 * issuer's single chain it writes to. Read-only, from the chains table the issuing transaction
 * keeps (length and last link), so it is exactly what the next record will link to.
 */
export function chainPanelRoute(app: FastifyInstance, deps: { chains: ChainHeads }): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/panel/v1/cadena',
    { schema: { tags: ['panel'], summary: 'Cadena de una caja: longitud y último eslabón', querystring: querySchema, response: { 200: cadenaCajaSchema } } },
    async (request) => {
      const { entorno, idMaquina } = request.query;
      const nif = normalizeNif(request.query.nif);
      const candidates: { key: string; propia: boolean; regimen: ChainRegimen }[] = [];
      for (const regimen of ['verifactu', 'ticketbai'] as const) {
        if (idMaquina) candidates.push({ key: deviceChainKey(regimen, entorno, nif, idMaquina), propia: true, regimen });
      }
      for (const regimen of ['verifactu', 'ticketbai'] as const) candidates.push({ key: issuerChainKey(regimen, entorno, nif), propia: false, regimen });
      const rows = deps.chains.chainHeads(candidates.map((c) => c.key));
      const found = candidates.find((c) => rows.some((r) => r.chainKey === c.key));
      const row = found ? rows.find((r) => r.chainKey === found.key) : undefined;
      return {
        ...(idMaquina ? { ultimaVentaEn: deps.chains.lastRecordAt(entorno, nif, idMaquina) } : {}),
        propia: found?.propia ?? false,
        sistemaFiscal: found?.regimen ?? 'verifactu',
        longitud: row ? Number(row.length) : 0,
        ultimaHuella: row ? ultimoEslabon(row.lastLink) : null,
      };
    },
  );
}
