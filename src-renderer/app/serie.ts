/**
 * The default series of a till: T + four characters of its identity + "-", so two tills never share
 * one and the number reads apart from the series (T6629-1, T6629-2…).
 */
export function defaultSerie(idMaquina: string): string {
  const tail = idMaquina.replace(/[^A-Za-z0-9]/g, '').slice(-4).toUpperCase();
  return `T${tail}-`;
}
