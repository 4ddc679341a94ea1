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
 */
export function seedDemoAccount(ctx: EngineContext): DemoKeys | undefined {
  if (ctx.accounts.listAccounts().length > 0) return undefined;
  return ctx.db.transaction(() => {
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
