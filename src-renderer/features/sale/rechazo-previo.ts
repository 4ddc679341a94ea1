// RechazoPrevio of a VeriFactu correction (AEAT annex 5.1), worked out from the invoice's records the
// same way the engine does (engine/src/verifactu/service.ts, rechazoPrevioFor): X when AEAT holds
// nothing for the invoice because every alta so far was rejected; S when it is registered and the
// last correction was rejected; N otherwise. Any other value the engine corrects, with a warning.

export type RechazoPrevio = 'N' | 'S' | 'X';

export interface RegistroVisto {
  tipo: string;
  estado: string;
  creadoEn: string;
}

export function rechazoPrevioDe(registros: readonly RegistroVisto[]): RechazoPrevio {
  // Newest first (the detail already lists them so; a stable sort keeps its order on equal times).
  const altas = registros.filter((r) => r.tipo !== 'anulacion').sort((a, b) => (a.creadoEn < b.creadoEn ? 1 : a.creadoEn > b.creadoEn ? -1 : 0));
  const rechazado = (r: RegistroVisto | undefined) => r?.estado === 'rechazada';
  const aceptada = altas.some((r) => r.estado === 'aceptada');
  const ultima = altas[0];
  if (!aceptada) return rechazado(ultima) ? 'X' : 'N';
  return rechazado(ultima) ? 'S' : 'N';
}
