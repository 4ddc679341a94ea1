import { madridDayNumber } from '../time';
import { describeError } from './errors';
import { validNif } from './nif';
import type { CabeceraEcho , SoapFaultError} from './soap';
import { clientFault } from './soap';

// Request-level rules (the 4xxx codes of errores.properties): a Cabecera or a presenter the AEAT
// refuses makes it refuse the whole request with a SOAP Fault, nothing registered.

/** The AEAT's two SOAP services: VERI*FACTU submissions, and answers to a requerimiento (non-VERI*FACTU systems). */
export type AeatEndpoint = 'verifactu' | 'requerimiento';

const ALNUM = /^[0-9A-Za-z]+$/;

const fault = (code: number, extra = ''): SoapFaultError => clientFault(code, `${describeError(code)}${extra}`);

/**
 * 4112: over mutual TLS, the certificate's holder must be the obligado or someone acting for it.
 * The emulator knows a representative only from the Cabecera's Representante; without a certificate
 * (plain HTTP, the tests' default) there is no holder to check.
 */
export function presenterFault(c: CabeceraEcho, holderNif: string | null): SoapFaultError | null {
  if (holderNif === null) return null;
  if (holderNif === c.obligado.nif || holderNif === c.representante?.nif) return null;
  return fault(4112);
}

/** 4116/4117: the Cabecera's NIFs (ObligadoEmision, Representante) need a right control character. */
export function nifFormatFault(c: CabeceraEcho): SoapFaultError | null {
  if (!validNif(c.obligado.nif)) return fault(4116, ` NIF: ${c.obligado.nif}`);
  if (c.representante && !validNif(c.representante.nif)) return fault(4117, ` NIF: ${c.representante.nif}`);
  return null;
}

/**
 * 4120 (FechaFinVeriFactu must be 31-12 of this year or the last), 4126 (a requerimiento's
 * block on the VERI*FACTU endpoint), 4125/4127 (the requerimiento endpoint without one, or with a
 * voluntary submission), 4133/4131 (RefRequerimiento not alphanumeric, FinRequerimiento not S/N).
 */
export function headerFault(c: CabeceraEcho, endpoint: AeatEndpoint, now: Date): SoapFaultError | null {
  if (endpoint === 'requerimiento') {
    if (c.remisionVoluntaria) return fault(4127);
    const rr = c.remisionRequerimiento;
    if (!rr) return fault(4125);
    // Validaciones §3.1.1.5: the reference is alphanumeric (4133); "must exist in the AEAT" (4122)
    // cannot be known here: the emulator holds no requirements, any alphanumeric one is taken.
    if (!ALNUM.test(rr.refRequerimiento)) return fault(4133, ` RefRequerimiento: ${rr.refRequerimiento}`);
    if (rr.finRequerimiento !== undefined && rr.finRequerimiento !== 'S' && rr.finRequerimiento !== 'N') return fault(4131);
    return null;
  }
  // RefRequerimiento is mandatory in the block, so 4126 comes before 4130 (FinRequerimiento) here.
  if (c.remisionRequerimiento) return fault(4126);
  const fin = c.remisionVoluntaria?.fechaFinVeriFactu;
  if (fin !== undefined) {
    const year = Math.floor(madridDayNumber(now) / 10_000);
    if (fin !== `31-12-${year}` && fin !== `31-12-${year - 1}`) return fault(4120, ` FechaFinVeriFactu: ${fin}`);
  }
  return null;
}

/**
 * What the AEAT's front end answers a request without a valid client certificate: HTTP 401 and an
 * HTML page (the service is never reached, so there is no SOAP Fault).
 */
export const CERTIFICATE_REQUIRED_HTML =
  '<!DOCTYPE html><html lang="es"><head><meta charset="UTF-8"><title>Error 401</title></head>' +
  '<body><h1>Error 401</h1><p>No se ha podido realizar la autenticación con certificado electrónico. ' +
  'Compruebe que dispone de un certificado válido y vuelva a intentarlo.</p></body></html>';
