// Till names staff can tell apart (issue 29): unique among the issuer's active tills, compared as
// the engine does (trimmed, any case: 409 DEVICE_LABEL_TAKEN), and a free one offered when taken.
// Shared by the till UI (first run, silent re-registration) and the desktop app's registration.

/** The name a till gets when nobody has named it yet (the desktop app, the demo's own till). */
export const PRIMERA_CAJA = 'Caja 1';

export const mismoNombre = (a: string, b: string): boolean => a.trim().toLocaleLowerCase('es') === b.trim().toLocaleLowerCase('es');

/** Whether another active till of the issuer already goes by this name (the engine refuses it: DEVICE_LABEL_TAKEN). */
export function nombreUsado(dispositivos: readonly { etiqueta: string; activo: boolean }[], nombre: string): boolean {
  return nombre.trim() !== '' && dispositivos.some((d) => d.activo && mismoNombre(d.etiqueta, nombre));
}

/** A free name like the one typed: its number counted up («Caja 1» → «Caja 2»), or one added («Mostrador» → «Mostrador 2»). */
export function nombreLibre(dispositivos: readonly { etiqueta: string; activo: boolean }[], nombre: string): string {
  const base = nombre.trim();
  const m = /^(.*?)(\d+)$/.exec(base);
  const raiz = m ? m[1]! : `${base} `;
  let n = m ? Number(m[2]) + 1 : 2;
  while (nombreUsado(dispositivos, `${raiz}${n}`)) n += 1;
  return `${raiz}${n}`.slice(0, 120);
}
