import type { EngineContext } from '../context';

/** The second demo issuer: a self-employed VeriFactu issuer that stays without the mode. */
export const DEMO_ISSUER_SIN_ALTA_CAPACIDAD = { nif: '00000014Z', nombre: 'ARTEAGA RUIZ NEREA (DEMO)' } as const;

/** The demo's own till as staff read it (never the computer's name, «vm» means nothing to a cashier). */
export const DEMO_TILL_LABEL = 'Caja principal';

/**
 * The promise on show on an empty data dir: the demo account's own company in `activa`
 * (`por_dispositivo`) with this till registered as its device in TEST and LIVE, and a second
 * issuer in `no_contratada`. Runs once, right after the demo account is seeded.
 */
export function seedDemoDevices(ctx: EngineContext, input: { nifEmisor: string; till: { idMaquina: string; etiqueta: string } }): void {
  ctx.db.transaction(() => {
    const account = ctx.accounts.findAccountByNif(input.nifEmisor);
    if (!account) return;
    ctx.devices.setPhase(account.id, input.nifEmisor, 'activa');
    for (const entorno of ['test', 'live'] as const) {
      // Through the service's rules (the issuer of this account, a phase that takes devices), as a till registers.
      if (!ctx.deviceStore.device(entorno, input.nifEmisor, input.till.idMaquina)) {
        ctx.devices.register({ account, entorno }, input.nifEmisor, { idMaquina: input.till.idMaquina, etiqueta: input.till.etiqueta.slice(0, 120) });
      }
      if (!ctx.issuers.find(entorno, DEMO_ISSUER_SIN_ALTA_CAPACIDAD.nif)) {
        ctx.issuers.create({ accountId: account.id, entorno, nif: DEMO_ISSUER_SIN_ALTA_CAPACIDAD.nif, nombre: DEMO_ISSUER_SIN_ALTA_CAPACIDAD.nombre, hacienda: 'verifactu' });
      }
    }
  });
}
