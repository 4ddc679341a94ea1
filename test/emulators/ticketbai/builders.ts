import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';
import { tbaiIdentifier, useFixedCanonicalization } from '../../../engine/emulators/ticketbai/index';

// Test documents for the TicketBAI emulators, built and signed here without any
// engine code: a self-signed RSA-2048 certificate made with node-forge and an
// XAdES-EPES enveloped signature computed with xml-crypto (enveloped-signature
// transform first, then C14N; SigningTime, SigningCertificate and
// SignaturePolicyIdentifier in SignedProperties).

export const NIF = 'B12345674';
export const NOMBRE = 'COMERCIAL DEMO SL';
export const GIPUZKOA_POLICY = {
  identifier: 'https://www.gipuzkoa.eus/TicketBAI/signature',
  digest: '6NrKAm60o7u62FUQwzZew24ra2ve9PRQYwC21AM6In0=',
};
export const BIZKAIA_POLICY = {
  identifier:
    'https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf',
  digest: 'Quzn98x3PMbSHwbUzaj5f5KOpiH0u8bvmwbbbNkO9Es=',
};
export const ARABA_POLICY = { identifier: 'https://ticketbai.araba.eus/tbai/sinadura/', digest: 'd69VEBc4ED4QbwnDtCA2JESgJiw+rwzfutcaSl5gYvM=' };

export interface TestSigner {
  keyPem: string;
  certPem: string;
  certB64: string;
  certDigestSha256: string;
  issuerName: string;
  serialDecimal: string;
}

let cached: TestSigner | null = null;

/** A self-signed test certificate (cached: RSA key generation is slow). */
export function testSigner(): TestSigner {
  if (cached) return cached;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const fkey = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(fkey.n, fkey.e);
  cert.serialNumber = '1a2b3c';
  cert.validity.notBefore = new Date(Date.UTC(2024, 0, 1));
  cert.validity.notAfter = new Date(Date.UTC(2035, 0, 1));
  const attrs = [
    { name: 'countryName', value: 'ES' },
    { name: 'organizationName', value: NOMBRE },
    { name: 'commonName', value: `SELLO TEST ${NIF}` },
    { name: 'serialNumber', value: `VATES-${NIF}` },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(fkey, forge.md.sha256.create());
  const certPem = forge.pki.certificateToPem(cert);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
  cached = {
    keyPem,
    certPem,
    certB64: der.toString('base64'),
    certDigestSha256: createHash('sha256').update(der).digest('base64'),
    issuerName: `serialNumber=VATES-${NIF},CN=SELLO TEST ${NIF},O=${NOMBRE},C=ES`,
    serialDecimal: BigInt('0x1a2b3c').toString(),
  };
  return cached;
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface SignOptions {
  policy?: { identifier: string; digest: string };
  signingTime?: string;
}

/** Appends an XAdES-EPES enveloped signature (ds:Signature as the root's last child). */
export function signTicketBai(xml: string, opts: SignOptions = {}): string {
  const s = testSigner();
  const id = `Signature-${randomUUID()}`;
  const policy = opts.policy ?? GIPUZKOA_POLICY;
  const qp =
    `<xades:QualifyingProperties xmlns:xades="http://uri.etsi.org/01903/v1.3.2#" Target="#${id}">` +
    `<xades:SignedProperties Id="${id}-SignedProperties"><xades:SignedSignatureProperties>` +
    `<xades:SigningTime>${opts.signingTime ?? '2025-03-01T11:00:00+01:00'}</xades:SigningTime>` +
    `<xades:SigningCertificate><xades:Cert><xades:CertDigest>` +
    `<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/><ds:DigestValue>${s.certDigestSha256}</ds:DigestValue>` +
    `</xades:CertDigest><xades:IssuerSerial><ds:X509IssuerName>${esc(s.issuerName)}</ds:X509IssuerName>` +
    `<ds:X509SerialNumber>${s.serialDecimal}</ds:X509SerialNumber></xades:IssuerSerial></xades:Cert></xades:SigningCertificate>` +
    `<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId>` +
    `<xades:Identifier>${esc(policy.identifier)}</xades:Identifier><xades:Description/></xades:SigPolicyId>` +
    `<xades:SigPolicyHash><ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>` +
    `<ds:DigestValue>${policy.digest}</ds:DigestValue></xades:SigPolicyHash>` +
    `<xades:SigPolicyQualifiers><xades:SigPolicyQualifier><xades:SPURI>${esc(policy.identifier)}</xades:SPURI>` +
    `</xades:SigPolicyQualifier></xades:SigPolicyQualifiers></xades:SignaturePolicyId></xades:SignaturePolicyIdentifier>` +
    `</xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties>`;
  const sx = useFixedCanonicalization(
    new SignedXml({
      privateKey: s.keyPem,
      publicCert: s.certPem,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315',
      getKeyInfoContent: () => `<ds:X509Data><ds:X509Certificate>${s.certB64}</ds:X509Certificate></ds:X509Data>`,
      keyInfoAttributes: { Id: `${id}-KeyInfo` },
      objects: [{ content: qp }],
    }),
  );
  const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
  const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
  sx.addReference({
    xpath: '/*',
    uri: '',
    isEmptyUri: true,
    id: `${id}-ref0`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N],
    digestAlgorithm: SHA256,
  });
  sx.addReference({
    xpath: `//*[@Id='${id}-SignedProperties']`,
    type: 'http://uri.etsi.org/01903#SignedProperties',
    transforms: [C14N],
    digestAlgorithm: SHA256,
  });
  sx.addReference({ xpath: `//*[@Id='${id}-KeyInfo']`, transforms: [C14N], digestAlgorithm: SHA256 });
  sx.computeSignature(xml, { prefix: 'ds', attrs: { Id: id }, location: { reference: '/*', action: 'append' } });
  return sx.getSignedXml();
}

export function signatureValueOf(signedXml: string): string {
  const m = /<ds:SignatureValue[^>]*>([^<]+)<\/ds:SignatureValue>/.exec(signedXml);
  if (!m) throw new Error('no SignatureValue');
  return (m[1] ?? '').replace(/\s+/g, '');
}

export interface Line {
  descripcion: string;
  cantidad: string;
  importeUnitario: string;
  importeTotal: string;
}

export interface AltaInput {
  nif?: string;
  nombre?: string;
  serie?: string;
  num: string;
  /** DD-MM-YYYY */
  fecha?: string;
  hora?: string;
  lines?: Line[];
  importeTotal?: string;
  prev?: { serie: string; num: string; fecha: string; signatureValue: string } | null;
  device?: string;
  /** Appended inside Factura/CabeceraFactura (to break the XSD on purpose). */
  rawInCabecera?: string;
}

const DEFAULT_LINES: Line[] = [{ descripcion: 'Café con leche', cantidad: '2.00000000', importeUnitario: '1.50000000', importeTotal: '3.63000000' }];

export function altaXml(a: AltaInput): string {
  const lines = a.lines ?? DEFAULT_LINES;
  const serie = a.serie ?? 'T';
  const fecha = a.fecha ?? '01-03-2025';
  const prev = a.prev
    ? `<EncadenamientoFacturaAnterior><SerieFacturaAnterior>${esc(a.prev.serie)}</SerieFacturaAnterior>` +
      `<NumFacturaAnterior>${esc(a.prev.num)}</NumFacturaAnterior>` +
      `<FechaExpedicionFacturaAnterior>${a.prev.fecha}</FechaExpedicionFacturaAnterior>` +
      `<SignatureValueFirmaFacturaAnterior>${a.prev.signatureValue.slice(0, 100)}</SignatureValueFirmaFacturaAnterior>` +
      `</EncadenamientoFacturaAnterior>`
    : '';
  const detalles = lines.length
    ? '<DetallesFactura>' +
      lines
        .map(
          (l) =>
            `<IDDetalleFactura><DescripcionDetalle>${esc(l.descripcion)}</DescripcionDetalle><Cantidad>${l.cantidad}</Cantidad>` +
            `<ImporteUnitario>${l.importeUnitario}</ImporteUnitario><ImporteTotal>${l.importeTotal}</ImporteTotal></IDDetalleFactura>`,
        )
        .join('') +
      '</DetallesFactura>'
    : '';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<T:TicketBai xmlns:T="urn:ticketbai:emision">' +
    '<Cabecera><IDVersionTBAI>1.2</IDVersionTBAI></Cabecera>' +
    `<Sujetos><Emisor><NIF>${a.nif ?? NIF}</NIF><ApellidosNombreRazonSocial>${esc(a.nombre ?? NOMBRE)}</ApellidosNombreRazonSocial></Emisor>` +
    '<VariosDestinatarios>N</VariosDestinatarios><EmitidaPorTercerosODestinatario>N</EmitidaPorTercerosODestinatario></Sujetos>' +
    '<Factura><CabeceraFactura>' +
    (serie ? `<SerieFactura>${esc(serie)}</SerieFactura>` : '') +
    `<NumFactura>${esc(a.num)}</NumFactura><FechaExpedicionFactura>${fecha}</FechaExpedicionFactura>` +
    `<HoraExpedicionFactura>${a.hora ?? '10:00:00'}</HoraExpedicionFactura><FacturaSimplificada>S</FacturaSimplificada>` +
    (a.rawInCabecera ?? '') +
    '</CabeceraFactura><DatosFactura>' +
    `<DescripcionFactura>Venta en caja</DescripcionFactura>${detalles}` +
    `<ImporteTotalFactura>${a.importeTotal ?? '3.63'}</ImporteTotalFactura>` +
    '<Claves><IDClave><ClaveRegimenIvaOpTrascendencia>01</ClaveRegimenIvaOpTrascendencia></IDClave></Claves>' +
    '</DatosFactura><TipoDesglose><DesgloseFactura><Sujeta><NoExenta><DetalleNoExenta><TipoNoExenta>S1</TipoNoExenta>' +
    '<DesgloseIVA><DetalleIVA><BaseImponible>3.00</BaseImponible><TipoImpositivo>21.00</TipoImpositivo>' +
    '<CuotaImpuesto>0.63</CuotaImpuesto></DetalleIVA></DesgloseIVA></DetalleNoExenta></NoExenta></Sujeta>' +
    '</DesgloseFactura></TipoDesglose></Factura>' +
    `<HuellaTBAI>${prev}<Software><LicenciaTBAI>TBAIGIPRE00000000501</LicenciaTBAI>` +
    '<EntidadDesarrolladora><NIF>B99999997</NIF></EntidadDesarrolladora><Nombre>TILL ENGINE</Nombre><Version>0.1</Version></Software>' +
    (a.device ? `<NumSerieDispositivo>${esc(a.device)}</NumSerieDispositivo>` : '') +
    '</HuellaTBAI></T:TicketBai>'
  );
}

export function anulacionXml(a: { nif?: string; serie?: string; num: string; fecha?: string; device?: string }): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<T:AnulaTicketBai xmlns:T="urn:ticketbai:anulacion">' +
    '<Cabecera><IDVersionTBAI>1.2</IDVersionTBAI></Cabecera>' +
    `<IDFactura><Emisor><NIF>${a.nif ?? NIF}</NIF><ApellidosNombreRazonSocial>${esc(NOMBRE)}</ApellidosNombreRazonSocial></Emisor>` +
    `<CabeceraFactura>${a.serie === '' ? '' : `<SerieFactura>${esc(a.serie ?? 'T')}</SerieFactura>`}` +
    `<NumFactura>${esc(a.num)}</NumFactura><FechaExpedicionFactura>${a.fecha ?? '01-03-2025'}</FechaExpedicionFactura></CabeceraFactura></IDFactura>` +
    '<HuellaTBAI><Software><LicenciaTBAI>TBAIGIPRE00000000501</LicenciaTBAI>' +
    '<EntidadDesarrolladora><NIF>B99999997</NIF></EntidadDesarrolladora><Nombre>TILL ENGINE</Nombre><Version>0.1</Version></Software>' +
    (a.device ? `<NumSerieDispositivo>${esc(a.device)}</NumSerieDispositivo>` : '') +
    '</HuellaTBAI></T:AnulaTicketBai>'
  );
}

export interface Issued {
  xml: string;
  serie: string;
  num: string;
  fecha: string;
  signatureValue: string;
  idTbai: string;
}

/** Issues chained, signed invoices per device like a till would. */
export class TbaiChain {
  private n = 0;
  private last = new Map<string, Issued>();
  constructor(
    private readonly opts: { nif?: string; serie?: string; fecha?: string; policy?: SignOptions['policy'] } = {},
  ) {}

  next(o: Partial<AltaInput> & { skipChain?: boolean; prevOverride?: AltaInput['prev'] } = {}): Issued {
    const device = o.device ?? '';
    const prev = this.last.get(device);
    const num = o.num ?? String(++this.n);
    const serie = o.serie ?? this.opts.serie ?? 'T';
    const fecha = o.fecha ?? this.opts.fecha ?? '01-03-2025';
    const input: AltaInput = {
      ...o,
      nif: o.nif ?? this.opts.nif ?? NIF,
      serie,
      num,
      fecha,
      prev:
        o.prevOverride !== undefined
          ? o.prevOverride
          : o.skipChain || !prev
            ? null
            : { serie: prev.serie, num: prev.num, fecha: prev.fecha, signatureValue: prev.signatureValue },
    };
    const xml = signTicketBai(altaXml(input), this.opts.policy ? { policy: this.opts.policy } : {});
    const signatureValue = signatureValueOf(xml);
    const issued: Issued = {
      xml,
      serie,
      num,
      fecha,
      signatureValue,
      idTbai: tbaiIdentifier(input.nif ?? NIF, fecha, signatureValue) ?? '',
    };
    this.last.set(device, issued);
    return issued;
  }
}

export function zuzenduAltaXml(inv: Issued, accion: 'SUBSANAR' | 'MODIFICAR', o: { nif?: string; importeTotal?: string } = {}): string {
  // Same content shape as the alta: Cabecera (Zuzendu), Sujetos, Factura, HuellaTBAI of the original,
  // and the first 100 characters of the original SignatureValue.
  const alta = altaXml({ nif: o.nif ?? NIF, serie: inv.serie, num: inv.num, fecha: inv.fecha, importeTotal: o.importeTotal ?? '3.63' });
  const body = /<Sujetos>[\s\S]*<\/HuellaTBAI>/.exec(alta)?.[0] ?? '';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<ns2:SubsanacionModificacionTicketBAI xmlns:ns2="urn:ticketbai:zuzendu-alta">' +
    `<Cabecera><IDVersion>1.0</IDVersion><Accion>${accion}</Accion></Cabecera>` +
    body +
    `<SignatureValueFirmaFactura>${inv.signatureValue.slice(0, 100)}</SignatureValueFirmaFactura>` +
    '</ns2:SubsanacionModificacionTicketBAI>'
  );
}

export function zuzenduBajaXml(inv: { serie: string; num: string; fecha: string }, anulacionSignatureValue: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    '<T:SubsanacionAnulacionTicketBAI xmlns:T="urn:ticketbai:zuzendu-baja">' +
    '<Cabecera><IDVersion>1.0</IDVersion></Cabecera>' +
    `<IDFactura><Emisor><NIF>${NIF}</NIF><ApellidosNombreRazonSocial>${esc(NOMBRE)}</ApellidosNombreRazonSocial></Emisor>` +
    `<CabeceraFactura><SerieFactura>${esc(inv.serie)}</SerieFactura><NumFactura>${esc(inv.num)}</NumFactura>` +
    `<FechaExpedicionFactura>${inv.fecha}</FechaExpedicionFactura></CabeceraFactura></IDFactura>` +
    '<HuellaTBAI><Software><LicenciaTBAI>TBAIGIPRE00000000501</LicenciaTBAI>' +
    '<EntidadDesarrolladora><NIF>B99999997</NIF></EntidadDesarrolladora><Nombre>TILL ENGINE</Nombre><Version>0.1</Version></Software></HuellaTBAI>' +
    `<SignatureValueFirmaAnulacion>${anulacionSignatureValue.slice(0, 100)}</SignatureValueFirmaAnulacion>` +
    '</T:SubsanacionAnulacionTicketBAI>'
  );
}

// ---- Bizkaia LROE ----

const LROE_NS = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas/';

export interface LroeInput {
  model: '240' | '140';
  op: 'alta' | 'anulacion';
  nif?: string;
  nombre?: string;
  ejercicio?: string;
  /** Signed TicketBAI (alta) or AnulaTicketBai (anulación) files. */
  files: string[];
  /** Override the Cabecera Operacion. */
  operacion?: string;
  /** Model 140: IAE epígrafe of each income. */
  epigrafe?: string;
}

export function lroeXml(i: LroeInput): string {
  const op = i.operacion ?? (i.op === 'alta' ? 'A00' : 'AN0');
  const cab =
    `<Cabecera><Modelo>${i.model}</Modelo><Capitulo>1</Capitulo><Subcapitulo>1.1</Subcapitulo>` +
    `<Operacion>${op}</Operacion><Version>1.0</Version><Ejercicio>${i.ejercicio ?? '2025'}</Ejercicio>` +
    `<ObligadoTributario><NIF>${i.nif ?? NIF}</NIF><ApellidosNombreRazonSocial>${esc(i.nombre ?? NOMBRE)}</ApellidosNombreRazonSocial></ObligadoTributario></Cabecera>`;
  const b64 = (x: string): string => Buffer.from(x, 'utf8').toString('base64');
  if (i.model === '240') {
    const root = i.op === 'alta' ? 'LROEPJ240FacturasEmitidasConSGAltaPeticion' : 'LROEPJ240FacturasEmitidasConSGAnulacionPeticion';
    const file = i.op === 'alta' ? 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd' : 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd';
    const tag = i.op === 'alta' ? 'TicketBai' : 'AnulacionTicketBai';
    return (
      `<?xml version="1.0" encoding="UTF-8"?><lrpjfecsgap:${root} xmlns:lrpjfecsgap="${LROE_NS}${file}">${cab}` +
      `<FacturasEmitidas>${i.files.map((f) => `<FacturaEmitida><${tag}>${b64(f)}</${tag}></FacturaEmitida>`).join('')}</FacturasEmitidas>` +
      `</lrpjfecsgap:${root}>`
    );
  }
  const root = i.op === 'alta' ? 'LROEPF140IngresosConFacturaConSGAltaPeticion' : 'LROEPF140IngresosConFacturaConSGAnulacionPeticion';
  const file = i.op === 'alta' ? 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd' : 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd';
  const rec = (f: string): string =>
    i.op === 'alta'
      ? `<Ingreso><TicketBai>${b64(f)}</TicketBai><Renta><DetalleRenta><Epigrafe>${i.epigrafe ?? '197330'}</Epigrafe></DetalleRenta></Renta></Ingreso>`
      : `<Ingreso><AnulacionTicketBai>${b64(f)}</AnulacionTicketBai></Ingreso>`;
  return `<?xml version="1.0" encoding="UTF-8"?><lrpficfcsgap:${root} xmlns:lrpficfcsgap="${LROE_NS}${file}">${cab}<Ingresos>${i.files.map(rec).join('')}</Ingresos></lrpficfcsgap:${root}>`;
}

export function lroeHeaders(model: '240' | '140', ejer = '2025', nif = NIF): Record<string, string> {
  return {
    'content-type': 'application/octet-stream',
    'content-encoding': 'gzip',
    'eus-bizkaia-n3-version': '1.0',
    'eus-bizkaia-n3-content-type': 'application/xml',
    'eus-bizkaia-n3-data': JSON.stringify({ con: 'LROE', apa: '1.1', inte: { nif, nrs: NOMBRE }, drs: { mode: model, ejer } }),
  };
}

export function gz(xml: string): Buffer {
  return gzipSync(Buffer.from(xml, 'utf8'));
}
