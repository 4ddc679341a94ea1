// Result codes. Araba and Gipuzkoa: the tables of TBAI_Descripcion_Servicios_Rest_Gipuzkoa_v0_2
// §5.1.3 (alta) and §5.2.2 (anulación); Araba publishes no table of its own in the
// reference set, so both use Gipuzkoa's. Texts follow the real answers kept in
// examples/gipuzkoa-responses ("Error: ..." / "Aviso: ...", Basque "Akatsa: ..." /
// "Abisua: ..."); Basque texts the references do not show are the emulator's own.
//
// Bizkaia (LROE): the Batuz code list is not in the reference set. The codes used
// come from public client libraries (B4_2000003 "Registro duplicado.", B4_1000002,
// B4_1000004, N3_0000011); the others are the emulator's choice and are marked so.

export type Severity = 'rechazo' | 'aviso';

export interface CodeInfo {
  severity: Severity;
  es: string;
  eu: string;
}

/** Alta (and Zuzendu alta). 001-006 reject the invoice; 007-014 are warnings. */
export const ALTA_CODES: Readonly<Record<string, CodeInfo>> = Object.freeze({
  '001': { severity: 'rechazo', es: 'Certificado remitente incorrecto (revocado o no homologado)', eu: 'Igorlearen ziurtagiria okerra da (baliogabetua edo homologatu gabea)' },
  '002': { severity: 'rechazo', es: 'El mensaje no cumple el esquema XSD', eu: 'Mezuak ez du XSDaren egitura betetzen' },
  '003': { severity: 'rechazo', es: 'La factura no incluye líneas de detalle', eu: 'Fakturak ez du xehetasun-lerrorik' },
  '004': { severity: 'rechazo', es: 'Falta dato necesario para ID TicketBAI', eu: 'TicketBAI IDrako beharrezko datua falta da' },
  '005': { severity: 'rechazo', es: 'Factura ya registrada en sistema', eu: 'Faktura dagoeneko erregistratuta dago sisteman' },
  '006': { severity: 'rechazo', es: 'El servicio de recepción no está disponible. Repita la operación más tarde', eu: 'Harrera-zerbitzua ez dago erabilgarri. Errepikatu eragiketa geroago' },
  '007': { severity: 'aviso', es: 'Certificado remitente no válido para emisor factura', eu: 'Igorlearen ziurtagiria ez da baliozkoa fakturaren jaulkitzailearentzat' },
  '008': { severity: 'aviso', es: 'Error en verificación de firma', eu: 'Errorea sinadura egiaztatzean' },
  '009': { severity: 'aviso', es: 'Certificado firmante no válido para emisor factura', eu: 'Sinatzailearen ziurtagiria ez da baliozkoa fakturaren jaulkitzailearentzat' },
  '010': { severity: 'aviso', es: 'Posible error de encadenamiento', eu: 'Posiblea da Kateamendu errorea gertatu izatea' },
  '011': { severity: 'aviso', es: 'Falta dato obligatorio', eu: 'Derrigorrezko datua falta da' },
  '012': { severity: 'aviso', es: 'Error en verificación alta-inscripción software TicketBAI', eu: 'Errorea gertatu da TicketBAI softwaren alta-inskripzioan' },
  '013': { severity: 'aviso', es: 'Dispositivo remitente/firmante no registrado', eu: 'Igorle/sinatzaile gailua ez dago erregistratuta' },
  '014': { severity: 'aviso', es: 'Identidad destinatario o tercero no registrada', eu: 'Hartzailearen edo hirugarrenaren identitatea ez dago erregistratuta' },
});

/**
 * Anulación (and Zuzendu baja). The document lists the codes without splitting
 * them; 003-009 are the counterparts of the alta warnings 007-014 and are treated
 * as warnings, the rest ("La factura no se ha anulado") reject.
 */
export const ANULACION_CODES: Readonly<Record<string, CodeInfo>> = Object.freeze({
  '001': { severity: 'rechazo', es: 'Certificado remitente incorrecto', eu: 'Transmisioaren ziurtagiria ez da zuzena' },
  '002': { severity: 'rechazo', es: 'El mensaje no cumple el esquema XSD', eu: 'Mezuak ez du XSDaren egitura betetzen' },
  '003': { severity: 'aviso', es: 'Certificado remitente no válido para emisor factura', eu: 'Igorlearen ziurtagiria ez da baliozkoa fakturaren jaulkitzailearentzat' },
  '004': { severity: 'aviso', es: 'Error en verificación de firma', eu: 'Errorea sinadura egiaztatzean' },
  '005': { severity: 'aviso', es: 'Certificado firmante no válido para emisor factura', eu: 'Sinatzailearen ziurtagiria ez da baliozkoa fakturaren jaulkitzailearentzat' },
  '006': { severity: 'aviso', es: 'Falta dato obligatorio', eu: 'Derrigorrezko datua falta da' },
  '007': { severity: 'aviso', es: 'Error en verificación licencia TicketBAI', eu: 'Errorea TicketBAI lizentzia egiaztatzean' },
  '008': { severity: 'aviso', es: 'Dispositivo remitente / firmante no registrado', eu: 'Igorle/sinatzaile gailua ez dago erregistratuta' },
  '009': { severity: 'aviso', es: 'Identidad destinatario o tercero no registrada', eu: 'Hartzailearen edo hirugarrenaren identitatea ez dago erregistratuta' },
  '010': { severity: 'rechazo', es: 'Factura no existe en sistema', eu: 'Faktura ez dago sisteman' },
  '011': { severity: 'rechazo', es: 'La factura ya ha sido anulada previamente', eu: 'Faktura aurretik baliogabetu da' },
  '012': { severity: 'rechazo', es: 'El servicio de anulación no está disponible. Repita la operación más tarde', eu: 'Baliogabetze-zerbitzua ez dago erabilgarri. Errepikatu eragiketa geroago' },
});

/** Codes the emulator answers by itself (the rest come only from fault injection). */
export const ALTA = {
  certificado: '001',
  xsd: '002',
  sinLineas: '003',
  datoIdTbai: '004',
  duplicada: '005',
  firma: '008',
  firmanteNoValido: '009',
  encadenamiento: '010',
} as const;
export const ANULA = {
  certificado: '001',
  xsd: '002',
  firma: '004',
  noExiste: '010',
  yaAnulada: '011',
} as const;

export interface ResultCode {
  codigo: string;
  severity: Severity;
  /** "Error: ..." / "Aviso: ...", at most 250 characters. */
  descripcion: string;
  azalpena: string;
}

const clip = (s: string): string => (s.length > 250 ? s.slice(0, 247) + '...' : s);

/** Builds a ResultadosValidacion entry; `detail` is appended as in the real 012 answer. */
export function resultCode(table: 'alta' | 'anulacion', codigo: string, detail?: string): ResultCode {
  const info = (table === 'alta' ? ALTA_CODES : ANULACION_CODES)[codigo];
  const severity: Severity = info?.severity ?? 'rechazo';
  const es = info?.es ?? 'Error simulado por el emulador';
  const eu = info?.eu ?? 'Emuladoreak simulatutako errorea';
  const d = detail ? `: ${detail}` : '';
  return {
    codigo,
    severity,
    descripcion: clip(`${severity === 'aviso' ? 'Aviso' : 'Error'}: ${es}${d}`),
    azalpena: clip(`${severity === 'aviso' ? 'Abisua' : 'Akatsa'}: ${eu}${d}`),
  };
}

export function severityOf(table: 'alta' | 'anulacion', codigo: string): Severity {
  return ((table === 'alta' ? ALTA_CODES : ANULACION_CODES)[codigo]?.severity ?? 'rechazo');
}

// ---- Bizkaia LROE ----

export interface LroeCodeInfo {
  es: string;
  eu: string;
  /** true when the code comes from a public client library, false when chosen by the emulator. */
  seen: boolean;
}

export const LROE_CODES: Readonly<Record<string, LroeCodeInfo>> = Object.freeze({
  // request level (header eus-bizkaia-n3-codigo-respuesta)
  B4_1000001: { es: 'El fichero no cumple el esquema XSD.', eu: 'Fitxategiak ez du XSD eskema betetzen.', seen: true },
  B4_1000002: { es: 'Todos los registros incluidos en la petición son incorrectos.', eu: 'Eskaerako erregistro guztiak okerrak dira.', seen: true },
  B4_1000004: { es: 'Error técnico.', eu: 'Errore teknikoa.', seen: true },
  N3_0000011: { es: 'Otros, consulte el mensaje recibido', eu: 'Besteak, kontsultatu jasotako mezua', seen: true },
  // record level (SituacionRegistro)
  B4_2000000: { es: 'Falta un dato obligatorio.', eu: 'Derrigorrezko datu bat falta da.', seen: true },
  B4_2000001: { es: 'El fichero TicketBAI no cumple el esquema XSD.', eu: 'TicketBAI fitxategiak ez du XSD eskema betetzen.', seen: true },
  B4_2000002: { es: 'El registro no existe en el sistema.', eu: 'Erregistroa ez dago sisteman.', seen: false },
  B4_2000003: { es: 'Registro duplicado.', eu: 'Erregistro bikoiztua.', seen: true },
  B4_2000060: { es: 'Error de encadenamiento con la factura anterior.', eu: 'Aurreko fakturarekiko kateamendu errorea.', seen: true },
  B4_2000070: { es: 'La firma o el certificado de firma no son válidos.', eu: 'Sinadura edo sinadura-ziurtagiria ez dira baliozkoak.', seen: true },
});

export const LROE = {
  xsdPeticion: 'B4_1000001',
  todosIncorrectos: 'B4_1000002',
  errorTecnico: 'B4_1000004',
  otros: 'N3_0000011',
  datoObligatorio: 'B4_2000000',
  xsdTicketBai: 'B4_2000001',
  noExiste: 'B4_2000002',
  duplicado: 'B4_2000003',
  encadenamiento: 'B4_2000060',
  firma: 'B4_2000070',
} as const;

export function lroeText(codigo: string, detail?: string): { es: string; eu: string } {
  const info = LROE_CODES[codigo];
  const d = detail ? ` ${detail}` : '';
  return {
    es: clip((info?.es ?? 'Error simulado por el emulador.') + d),
    eu: clip((info?.eu ?? 'Emuladoreak simulatutako errorea.') + d),
  };
}
