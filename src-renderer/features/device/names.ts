// A till as staff name it, everywhere (header, invoice detail, receipt, sync view, «Verificar
// cadenas»): its label, never the raw identity, which only support reads (in Ajustes).
import { useSession } from '../../app/session';
import { useDevice } from './store';

/** The name of the till with this identity: this till's own label, or the engine's label of another. */
export function nombreCaja(idMaquina: string): string {
  const { idMaquina: propia, etiqueta } = useSession.getState();
  if (idMaquina === propia && etiqueta) return etiqueta;
  const otra = useDevice.getState().lista?.dispositivos.find((d) => d.idMaquina === idMaquina);
  return otra?.etiqueta || idMaquina;
}

/** The same, re-rendering when the names change. */
export function useNombreCaja(): (idMaquina: string) => string {
  useSession((s) => s.etiqueta);
  useDevice((s) => s.lista);
  return nombreCaja;
}
