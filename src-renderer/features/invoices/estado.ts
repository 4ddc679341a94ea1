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

type Registro = { tipo: string; estado: string; estadoEnvioFinal?: string | undefined };
type Detalle = { factura: ConEstado & { tipoFactura?: string | null | undefined }; registros: readonly Registro[] };

/**
 * Where the invoice's cancellation stands, from its records: sent and waiting for the authority
 * (the invoice is still registered until it accepts), refused, or done. Undefined: never cancelled.
 */
export function estadoAnulacion(detalle: Detalle): 'anulada' | 'anulacion_pendiente' | 'anulacion_rechazada' | undefined {
  if (detalle.factura.estadoFactura === 'anulada') return 'anulada';
  const anulacion = detalle.registros.filter((r) => r.tipo === 'anulacion').at(-1);
  if (!anulacion) return undefined;
  if (anulacion.estado === 'rechazada' || anulacion.estadoEnvioFinal === 'rechazada') return 'anulacion_rechazada';
  return anulacion.estado === 'aceptada' ? 'anulada' : 'anulacion_pendiente';
}

/** The state a view of one invoice shows (detail, the sale's result): its cancellation on its way wins. */
export function estadoMostrado(detalle: Detalle): string {
  const anulacion = estadoAnulacion(detalle);
  if (anulacion === 'anulacion_pendiente' || anulacion === 'anulacion_rechazada') return anulacion;
  return estadoDe(detalle.factura);
}

/** A state the engine will not leave on its own: views stop polling once they show one. */
export function esFinal(estado: string): boolean {
  return estado !== 'pendiente_envio' && estado !== 'anulacion_pendiente';
}

/** Whether an action is open, and if not, the message key that says why (shown beside it). */
export type Accion = { ok: true } | { ok: false; motivo: 'accion.yaAnulada' | 'accion.anulacionEnCurso' | 'accion.rechazadaSubsanar' | 'accion.soloRechazada' | 'accion.soloF2' | 'accion.pendiente' };

/** The actions on an invoice the engine would accept, each with the reason when it would not. */
export function accionesDe(detalle: Detalle): { anular: Accion; subsanar: Accion; devolver: Accion } {
  const estado = estadoMostrado(detalle);
  const anulada = detalle.factura.estadoFactura === 'anulada';
  const no = (motivo: Extract<Accion, { ok: false }>['motivo']): Accion => ({ ok: false, motivo });
  const ok: Accion = { ok: true };
  return {
    anular: anulada ? no('accion.yaAnulada') : estado === 'anulacion_pendiente' ? no('accion.anulacionEnCurso') : estado === 'rechazada' ? no('accion.rechazadaSubsanar') : ok,
    subsanar: anulada ? no('accion.yaAnulada') : estado === 'rechazada' ? ok : no('accion.soloRechazada'),
    devolver: anulada
      ? no('accion.yaAnulada')
      : detalle.factura.tipoFactura !== 'F2'
        ? no('accion.soloF2')
        : estado === 'rechazada'
          ? no('accion.rechazadaSubsanar')
          : estado === 'anulacion_pendiente'
            ? no('accion.anulacionEnCurso')
            : ok,
  };
}
