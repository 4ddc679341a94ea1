// A till as staff name it, everywhere (header, invoice detail, receipt, sync view, «Verificar
// cadenas»): its label, never the raw identity, which only support reads (in Ajustes).
import { useSession } from '../../app/session';
import { translate } from '../../i18n';
import { formatDateTime } from '../../i18n/format';
import { useDevice } from './store';

/**
 * The name of the till with this identity: this till's own label, or the engine's label of
 * another; a registered till without one by when it was registered. Only a till the engine never
 * registered (POS software's own idMaquina) is left with its identity: there is nothing else.
 */
export function nombreCaja(idMaquina: string): string {
  const { idMaquina: propia, etiqueta, lang, settings } = useSession.getState();
  if (idMaquina === propia && etiqueta) return etiqueta;
  const otra = useDevice.getState().lista?.dispositivos.find((d) => d.idMaquina === idMaquina);
  if (otra?.etiqueta) return otra.etiqueta;
  if (otra) return translate(lang, 'identidad.sinNombre', { fecha: formatDateTime(lang, settings.zonaHoraria, otra.creadoEn) });
  return idMaquina;
}

/** The same, re-rendering when the names change. */
export function useNombreCaja(): (idMaquina: string) => string {
  useSession((s) => s.etiqueta);
  useSession((s) => s.lang);
  useDevice((s) => s.lista);
  return nombreCaja;
}
