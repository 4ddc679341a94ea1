// Rule 1 of issue 14: every refusal staff can meet reaches them in their language, saying what to
// do; the engine's own text is kept as the detail, never the message.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src-renderer/api/engine-client';
import { explainBloqueo, explainError, explainSendError, nifProblem } from '../../src-renderer/api/problems';
import { LANGS } from '../../src-renderer/i18n';

const refused = (status: number, code: string, message: string, campo?: string) =>
  new ApiError(status, { code, message, ...(campo ? { campo, errors: [`${campo}: ${message}`] } : {}) }, message);

describe('Engine refusals are explained in the staff’s words, the engine’s text as the detail', () => {
  it('the F2 limit (AEAT 1150) says to press F4 for a full invoice, in es, eu and en', () => {
    const error = refused(400, 'VALIDATION_ERROR', 'a simplified invoice (F2) cannot exceed 3000.00; its lines add up to 3500.00 (AEAT 1150)', 'totales.importeTotal');
    expect(explainError('es', error).mensaje).toBe('Más de 3.000 €: pulse F4 para una factura completa con los datos del cliente.');
    expect(explainError('eu', error).mensaje).toContain('F4');
    expect(explainError('en', error).mensaje).toContain('press F4');
    expect(explainError('es', error).detalle).toBe('VALIDATION_ERROR · a simplified invoice (F2) cannot exceed 3000.00; its lines add up to 3500.00 (AEAT 1150) · (totales.importeTotal)');
    expect(explainError('es', error).campo).toBe('totales.importeTotal');
  });

  it('a character the AEAT refuses in the invoice number (AEAT 1287) is named, in es, eu and en', () => {
    const error = refused(
      400,
      'VALIDATION_ERROR',
      `numero contains the character =, which the AEAT refuses in an invoice number (< > " ' =) (AEAT 1287)`,
      'cabecera.numero',
    );
    expect(explainError('es', error).mensaje).toBe('La serie o el número de la factura llevan «=», que Hacienda no admite (< > " \' =): cambie la serie de la caja en Ajustes.');
    expect(explainError('eu', error).mensaje).toContain('«=»');
    expect(explainError('en', error).mensaje).toContain('“=”');
    expect(explainError('es', error).campo).toBe('cabecera.numero');
    // A quote is named as well.
    const quote = refused(400, 'VALIDATION_ERROR', `serie contains the character ', which the AEAT refuses in an invoice number (< > " ' =) (AEAT 1287)`, 'cabecera.serie');
    expect(explainError('en', quote).mensaje).toContain("“'”");
  });

  it.each([
    ['destinatario.nif', 'El NIF del cliente no es válido: revise las letras y las cifras.'],
    ['destinatario.nombre', 'Revise el nombre del cliente (obligatorio, como mucho 120 caracteres).'],
    ['emisor.nif', 'El NIF del emisor no es válido: elija el emisor en Ajustes.'],
    ['cabecera.serie', 'La serie o el número de la factura no son válidos: revise la serie de la caja en Ajustes.'],
    ['cabecera.fechaExpedicion', 'La fecha de la factura no es válida: compruebe la fecha del equipo.'],
    ['cabecera.descripcion', 'La descripción no es válida: acórtela o quite caracteres especiales.'],
    ['detalleDesglose[0].baseImponible', 'Los importes de la venta no cuadran: revise las líneas.'],
    ['especial.tercero', 'Un dato de la venta no es válido: revise las líneas y el cliente.'],
  ])('a validation error on %s names what to fix', (campo, mensaje) => {
    expect(explainError('es', refused(400, 'VALIDATION_ERROR', 'developer text', campo))).toEqual({ mensaje, detalle: `VALIDATION_ERROR · developer text · (${campo})`, campo });
  });

  it.each([
    [409, 'INVOICE_IDENTITY_CONFLICT', 'error.facturaExiste'],
    [409, 'INVOICE_STATUS_INVALID', 'La factura no admite esta operación ahora (por ejemplo, ya está anulada o su envío no ha terminado).'],
    [409, 'INVOICE_HAS_RECTIFICATIVAS', 'La factura tiene facturas rectificativas: anule o corrija primero esas.'],
    [404, 'NOT_FOUND', 'No se ha encontrado en el motor.'],
    [403, 'FORBIDDEN', 'Este emisor no pertenece a la cuenta de la caja: elija otro en Ajustes.'],
    [402, 'PAYMENT_REQUIRED', 'La suscripción de la cuenta no está activa: avise al responsable de la tienda.'],
    [429, 'RATE_LIMITED', 'El motor está ocupado: espere unos segundos y reintente.'],
    [429, 'QUOTA_EXCEEDED', 'Se ha agotado la cuota mensual de la cuenta: avise al responsable de la tienda.'],
    [409, 'TILL_KEY_MISSING', 'La caja no tiene clave para este entorno: cree una en Ajustes.'],
    [503, 'ENVIRONMENT_NOT_AVAILABLE', 'El entorno REAL no está preparado todavía: use PRUEBAS o avise a soporte.'],
    [503, 'AEAT_UNAVAILABLE', 'El censo de la AEAT no responde: puede cobrar igualmente; el NIF se comprobará al enviar.'],
    [400, 'PROVINCE_MISMATCH', 'La provincia no corresponde a la hacienda del emisor: revise el emisor en Ajustes.'],
    [409, 'CLIENT_STATUS_INVALID', 'El emisor no está activo: revíselo en Ajustes o avise a soporte.'],
    [500, 'INTERNAL_ERROR', 'Error interno del motor: reintente y, si sigue, exporte el registro en Ajustes para soporte.'],
    [500, 'SOMETHING_NEW', 'Error interno del motor: reintente y, si sigue, exporte el registro en Ajustes para soporte.'],
    [409, 'SOMETHING_NEW', 'El motor no aceptó la operación.'],
  ])('HTTP %i %s', (status, code, mensaje) => {
    const problem = explainError('es', refused(status, code, 'engine text'));
    if (mensaje.startsWith('error.')) expect(problem.mensaje).toMatch(/^Ya existe otra factura/);
    else expect(problem.mensaje).toBe(mensaje);
    expect(problem.detalle).toBe(`${code} · engine text`);
  });

  it('no connection, a gateway 403 without code and a non-engine error each get their own words', () => {
    expect(explainError('es', new ApiError(0, undefined, 'Sin conexión con el motor: fetch failed')).mensaje).toBe('No hay conexión con el motor de la caja: compruebe que está en marcha y reintente.');
    expect(explainError('es', new ApiError(403, undefined, 'Forbidden')).mensaje).toBe('La clave de la caja no es válida o fue revocada: cree una nueva en Ajustes.');
    expect(explainError('en', new Error('boom'))).toEqual({ mensaje: 'The engine did not accept the operation.', detalle: 'boom' });
  });

  it('every explanation exists in every language (no key shows as itself)', () => {
    for (const lang of LANGS) {
      for (const code of ['VALIDATION_ERROR', 'FORBIDDEN', 'RATE_LIMITED', 'INTERNAL_ERROR', 'EMULATOR_ERROR']) {
        expect(explainError(lang, refused(400, code, 'x', 'destinatario.nif')).mensaje).not.toMatch(/^error\./);
      }
    }
  });
});

describe('A NIF refused at the till says why in the staff’s language (not the validator’s English)', () => {
  it('wrong check character: names the expected one', () => {
    expect(nifProblem('es', 'B12345672')).toBe('el último carácter debería ser 4, no 2: revise lo tecleado');
    expect(nifProblem('es', 'X1234567A')).toBe('el último carácter debería ser L, no A: revise lo tecleado');
    expect(nifProblem('en', 'X1234567A')).toBe('the last character should be L, not A: check what was typed');
  });
  it('length and shape', () => {
    expect(nifProblem('es', 'B1234')).toBe('un NIF tiene 9 caracteres y lleva 5');
    expect(nifProblem('eu', 'Ñ12345678')).toContain('IFZ');
    expect(nifProblem('es', 'B12345674')).toBeUndefined();
  });
});

describe('A queue’s last error is said in words; the raw text stays as the detail', () => {
  it.each([
    ['read ECONNRESET', 'No se pudo conectar con la autoridad (conexión cortada o sin red).'],
    ['connect ECONNREFUSED 127.0.0.1:8790', 'No se pudo conectar con la autoridad (conexión cortada o sin red).'],
    ['The operation was aborted due to timeout', 'La autoridad tardó demasiado en responder.'],
    ['HTTP 500', 'La autoridad respondió con un error de su servidor.'],
    ['unable to verify the first certificate', 'Problema con el certificado de conexión: avise a soporte.'],
    ['Codigo 4102: XML mal formado', 'La autoridad no aceptó el envío: vea el detalle técnico.'],
  ])('%s', (raw, mensaje) => {
    expect(explainSendError('es', raw)).toEqual({ mensaje, detalle: raw });
  });
  it('no error, nothing to say', () => {
    expect(explainSendError('es', null)).toBeUndefined();
  });
});

describe('A queue held back by a fault only a person can fix (AEAT 4104…): what to do, in each language', () => {
  it.each(['nif_emisor_no_identificado', 'nif_representante_no_identificado', 'certificado_no_autorizado'] as const)('%s', (motivo) => {
    for (const lang of LANGS) {
      const p = explainBloqueo(lang, { codigo: '4104', motivo, descripcion: 'NIF no identificado' });
      expect(p?.mensaje, lang).toMatch(/.{40,}/);
      expect(p?.mensaje, lang).not.toContain('4104');
      expect(p?.detalle).toBe('AEAT 4104 · NIF no identificado');
    }
    expect(explainBloqueo('es', { codigo: '4104', motivo: 'nif_emisor_no_identificado', descripcion: null })?.mensaje).toMatch(/Reintentar ahora/);
    expect(explainBloqueo('es', null)).toBeUndefined();
  });
});

describe('Shop-server refusals (issue 30) reach staff in their words', () => {
  it.each([
    [403, 'ADMIN_REQUIRED', 'Esto solo lo puede hacer el administrador, en el servidor de la tienda.'],
    [403, 'MACHINE_CREDENTIAL_REQUIRED', 'Esta caja no puede vender con la identidad de otra: revise su configuración con el administrador.'],
    [403, 'MACHINE_CREDENTIAL_MISMATCH', 'Esta caja no puede vender con la identidad de otra: revise su configuración con el administrador.'],
    [429, 'TOO_MANY_ATTEMPTS', 'Demasiados intentos con un acceso no válido: espere un minuto y vuelva a abrir la caja.'],
  ])('%i %s', (status, code, mensaje) => {
    expect(explainError('es', refused(status, code, 'engine text')).mensaje).toBe(mensaje);
    expect(explainError('en', refused(status, code, 'engine text')).mensaje).not.toBe(mensaje);
  });
});
