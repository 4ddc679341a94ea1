// The one status vocabulary of the till, shared by the invoice list, its detail and the sale's
// result: the same invoice never reads two different ways.

export type ConEstado = { estadoFactura?: string | null | undefined; estadoEnvio?: string | undefined };

/**
 * The invoice's state once the authority concluded (registrada, anulada, rectificada), rechazada
 * when it refused it, and pendiente_envio for everything in between (queued, in a batch, sending,
 * no answer yet).
 */
export function estadoDe(f: ConEstado): string {
  if (f.estadoFactura === 'registrada' || f.estadoFactura === 'anulada' || f.estadoFactura === 'rectificada') return f.estadoFactura;
  return f.estadoEnvio === 'rechazada' ? 'rechazada' : 'pendiente_envio';
}
