/**
 * A backlog of LIVE VeriFactu records issued straight at the billing API (as POS software would),
 * 24 requests at a time, honouring 429 Retry-After. LIVE because TEST keys are capped at 1,000
 * requests a month (account/plans.ts); the demo account's LIVE plan allows 250 req/s per key.
 */
import { AccountStore } from '../../../engine/src/account/store';
import { SqliteDatabase } from '../../../engine/src/db/database';
import { systemClock } from '../../../engine/src/platform/clock';
import { timeOrderedIds } from '../../../engine/src/platform/ids';
import type { DemoKeys } from './headless';
import { todayInMadrid } from '../../support/madrid-day';

/**
 * `extra` more LIVE keys of the demo account, created in the running engine's database as the
 * admin command line does (`key create`: AccountStore.createKey on a connection of its own), in
 * this process, since an admin process per key costs seconds of CPU. The per-second limit is per
 * key, so a backlog issued over several keys is bound by the engine, not by the plan's 250 req/s.
 */
export async function moreLiveKeys(dataDir: string, nifEmisor: string, extra: number): Promise<string[]> {
  const db = SqliteDatabase.open(dataDir);
  try {
    const accounts = new AccountStore(db, systemClock, timeOrderedIds(systemClock));
    const account = accounts.findAccountByNif(nifEmisor);
    if (!account) throw new Error(`no account for ${nifEmisor}`);
    return Array.from({ length: extra }, () => accounts.createKey(account.id, 'live').rawKey);
  } finally {
    await db.close();
  }
}

/** Issues `count` records; request n goes with key n mod keys.length (all LIVE keys of the demo account). */
export async function issueBacklog(keys: DemoKeys, liveKeys: readonly string[], count: number, serie = 'BL'): Promise<{ ms: number }> {
  const fecha = todayInMadrid();
  const t0 = performance.now();
  let next = 0;
  const one = async (n: number): Promise<void> => {
    const apiKey = liveKeys[n % liveKeys.length]!;
    for (;;) {
      const res = await fetch(`${keys.billingUrl}/v1/verifactu/crear`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          version: '1.0',
          emisor: { nif: keys.nifEmisor, nombre: 'COMERCIAL DEMO SL' },
          cabecera: { serie, numero: String(n), fechaExpedicion: fecha, tipoFactura: 'F2', descripcion: 'Venta de fondo' },
          detalleDesglose: [{ claveRegimen: '01', calificacionOperacion: 'S1', baseImponible: '10.00', tipoImpositivo: '21', cuotaRepercutida: '2.10' }],
          totales: { cuotaTotal: '2.10', importeTotal: '12.10' },
        }),
      });
      if (res.status === 200) {
        await res.arrayBuffer();
        return;
      }
      const text = await res.text();
      if (res.status !== 429) throw new Error(`backlog crear ${n}: ${res.status} ${text}`);
      // The per-second limit: wait what the API asks (a second or two).
      const wait = Number(res.headers.get('retry-after') ?? '1');
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, wait) * 1000));
    }
  };
  const worker = async () => {
    while (next < count) {
      next += 1;
      await one(next);
    }
  };
  await Promise.all(Array.from({ length: 24 }, worker));
  return { ms: performance.now() - t0 };
}
