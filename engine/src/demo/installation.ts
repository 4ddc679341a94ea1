import type { EngineContext } from '../context';
import { seedDemoAccount, seedDemoTicketBaiIssuers, type DemoKeys } from './account';
import { seedDemoDevices } from './devices';

/**
 * The demo installation on an empty data dir, all or nothing: the account and its keys, this till
 * as its device, the TicketBAI issuers and the compliance declaration, in one transaction. A start
 * stopped half-way (Ctrl-C, a crash) leaves either all of it or none, and the next start seeds
 * what is missing instead of finding an account and seeding nothing more.
 *
 * The raw keys exist nowhere but in this call: `keepKeys` must store them durably, and it runs
 * inside the transaction, before the account holding their hashes commits. Stored and then not
 * committed, the next start seeds anew and overwrites them; committed, they are on disk.
 */
export async function seedDemoInstallation(
  ctx: EngineContext,
  input: { till: { idMaquina: string; etiqueta: string }; keepKeys: (keys: DemoKeys) => void },
): Promise<DemoKeys | undefined> {
  // A data dir with accounts is never seeded (and nothing is rendered for it).
  if (ctx.accounts.listAccounts().length > 0) return undefined;
  // Rendered beforehand: its PDF is made asynchronously, outside any transaction.
  const declaration = ctx.declarations.current() === undefined ? await ctx.declarations.render() : undefined;
  return ctx.db.transaction(() => {
    // Looked at again under the write lock: another node on the same database may have seeded.
    const keys = seedDemoAccount(ctx);
    if (keys === undefined) return undefined;
    seedDemoDevices(ctx, { nifEmisor: keys.nifEmisor, till: input.till });
    seedDemoTicketBaiIssuers(ctx, keys.nifEmisor);
    if (declaration && ctx.declarations.current() === undefined) ctx.declarations.publishRendered(declaration);
    input.keepKeys(keys);
    return keys;
  });
}
