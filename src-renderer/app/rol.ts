// Who the till's panel credential is (GET /panel/v1/arranque → rol). A till's own credential
// (`caja`) gets 403 ADMIN_REQUIRED on the administrator's routes (engine/src/http/panel-auth.ts,
// ADMIN_ROUTES): the screens disable those controls and say why instead of letting them fail.
import type { Arranque } from '../api/panel-schemas';
import { useSession } from './session';

/** An engine that does not say the role predates per-till credentials: its token is the administrator's. */
export function esAdministrador(arranque: Pick<Arranque, 'rol'> | undefined): boolean {
  return arranque?.rol !== 'caja';
}

export function useEsAdministrador(): boolean {
  return useSession((s) => esAdministrador(s.arranque));
}

/** The id of the one note that explains disabled administrator controls (aria-describedby). */
export const NOTA_SOLO_ADMIN = 'nota-solo-administrador';
