import type { EngineContext } from '../context';

export const DEMO_ACCOUNT = { nif: 'B12345674', nombre: 'COMERCIAL DEMO SL', plan: 'empresa' } as const;

export interface DemoKeys {
  test: string;
  live: string;
  nifEmisor: string;
}

/**
 * First start with an empty data dir: a demo account whose own company is a VeriFactu issuer in
 * both environments, with a TEST and a LIVE key. Returns undefined when accounts already exist.
 * Looked at inside the write transaction: of several nodes starting together on one empty
 * PostgreSQL database, the first to take the write lock seeds, the others find its account.
 */
export function seedDemoAccount(ctx: EngineContext): DemoKeys | undefined {
  if (ctx.accounts.listAccounts().length > 0) return undefined;
  return ctx.db.transaction(() => {
    if (ctx.accounts.listAccounts().length > 0) return undefined;
    const account = ctx.accounts.createAccount({
      ...DEMO_ACCOUNT,
      limiteClientesTest: 10,
      limiteClientesLive: 10,
    });
    for (const entorno of ['test', 'live'] as const) {
      ctx.issuers.create({
        accountId: account.id,
        entorno,
        nif: account.nif,
        nombre: account.nombre,
        hacienda: 'verifactu',
      });
    }
    const test = ctx.accounts.createKey(account.id, 'test').rawKey;
    const live = ctx.accounts.createKey(account.id, 'live').rawKey;
    return { test, live, nifEmisor: account.nif };
  });
}

/**
 * The demo shop's TicketBAI issuers, one per treasury (TEST only: a LIVE TicketBAI issuer needs the
 * shop's own certificate). All three are in the census emulator's seed.
 */
export const DEMO_TICKETBAI_ISSUERS = [
  { nif: 'B01123454', nombre: 'VINOS RIOJA ALAVESA SL', hacienda: 'tbai-araba', provincia: 'araba' },
  { nif: 'B48123459', nombre: 'TALLERES BILBAO ZAHARRA SL', hacienda: 'tbai-bizkaia', provincia: 'bizkaia' },
  { nif: 'B20123451', nombre: 'SAGARDOTEGI ERREKA SL', hacienda: 'tbai-gipuzkoa', provincia: 'gipuzkoa' },
] as const;

/**
 * What `npm start` adds on a fresh data dir beside the demo account, so that every read a client of
 * the hosted service tries answers: the TicketBAI issuers (and a published compliance declaration,
 * demo/installation.ts).
 */
export function seedDemoTicketBaiIssuers(ctx: EngineContext, accountNif: string): void {
  const account = ctx.accounts.findAccountByNif(accountNif);
  if (account === undefined) return;
  ctx.db.transaction(() => {
    for (const issuer of DEMO_TICKETBAI_ISSUERS) {
      ctx.issuers.create({ accountId: account.id, entorno: 'test', nif: issuer.nif, nombre: issuer.nombre, hacienda: issuer.hacienda });
    }
  });
}
