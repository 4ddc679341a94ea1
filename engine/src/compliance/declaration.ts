// Declaración responsable (RD 1007/2023 art. 13; contents per Orden HAC/1177/2024 art. 15.1 a–l).
// The producer certifies the SIF with it; it must be visible in the system for each version.
// Rendered as HTML from assets/declaracion-responsable/plantilla.html and as a PDF with pdf-lib.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import type { PDFFont, PDFPage } from 'pdf-lib';

export type DeclarationData = {
  productor: { nombreRazon: string; nif: string; direccion?: string };
  sistema: {
    nombre: string;
    idSistemaInformatico: string;
    version: string;
    componentes: string[];
    soloVerifactu: boolean;
    multiOT: boolean;
    indicadorMultiplesOT: boolean;
    tiposFirma: string[];
  };
  /** At least locality and country, in that order (art. 15.1.l). */
  lugar: string;
  /** Date of subscription; also the PDF's CreationDate/ModDate, so output is reproducible. */
  fecha: Date;
};

export const TEMPLATE_PATH = ['declaracion-responsable', 'plantilla.html'] as const;

export async function loadDeclarationTemplate(assetsDir: string): Promise<string> {
  return readFile(join(assetsDir, ...TEMPLATE_PATH), 'utf8');
}

// Statements of art. 15.1.k. The template carries the same sentences (a test keeps them in sync).
export const COMPLIANCE_STATEMENTS: readonly string[] = [
  'Cumple con lo dispuesto en el artículo 29.2.j) de la Ley 58/2003, de 17 de diciembre, General Tributaria, garantizando la integridad, conservación, accesibilidad, legibilidad, trazabilidad e inalterabilidad de los registros, sin interpolaciones, omisiones o alteraciones de las que no quede la debida anotación en el propio sistema.',
  'Cumple con lo dispuesto en el Reglamento que establece los requisitos que deben adoptar los sistemas y programas informáticos o electrónicos que soporten los procesos de facturación de empresarios y profesionales, y la estandarización de formatos de los registros de facturación, aprobado por el Real Decreto 1007/2023, de 5 de diciembre.',
  'Cumple con las especificaciones técnicas, funcionales y de contenido de la Orden HAC/1177/2024, de 17 de octubre, que desarrolla dicho Reglamento, y con el resto de la normativa que lo desarrolle.',
];

const TITULO = 'Declaración responsable del sistema informático de facturación';
const PREAMBULO =
  'Certificación del sistema informático de facturación prevista en el artículo 13 del Reglamento aprobado por el Real Decreto 1007/2023, de 5 de diciembre, con el contenido del artículo 15 de la Orden HAC/1177/2024, de 17 de octubre.';
const NOTA_FINAL =
  'Esta declaración consta por escrito y de modo visible en el propio sistema informático para la versión indicada, y se pone a disposición del cliente y del comercializador en el momento de la adquisición del producto.';

const NO_FIRMA =
  'No aplica: el sistema funciona exclusivamente como «VERI*FACTU» y no firma los registros.';
const SIN_DIRECCION = 'No indicada.';

const MESES = [
  'enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio',
  'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre',
];

/** Day, month and year in that order (art. 15.1.l), as the calendar date in Spain. */
export function formatFechaDeclaracion(fecha: Date): string {
  // Fixed zone and our own month names: the result must not depend on the host's locale or zone.
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'Europe/Madrid',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(fecha);
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  return `${part('day')} de ${MESES[part('month') - 1] ?? ''} de ${part('year')}`;
}

/** What makes the data unfit for a declaration; renderers refuse to produce an incomplete one. */
export function declarationProblems(data: DeclarationData): string[] {
  const problems: string[] = [];
  const blank = (v: string | undefined): boolean => v === undefined || v.trim() === '';
  if (blank(data.productor.nombreRazon)) problems.push('productor.nombreRazon is empty');
  if (blank(data.productor.nif)) problems.push('productor.nif is empty');
  if (blank(data.sistema.nombre)) problems.push('sistema.nombre is empty');
  // SistemaInformatico/IdSistemaInformatico is TextMax2 in the VeriFactu XSD.
  if (!/^[A-Za-z0-9]{1,2}$/.test(data.sistema.idSistemaInformatico)) {
    problems.push('sistema.idSistemaInformatico must be 1-2 letters or digits');
  }
  if (blank(data.sistema.version)) problems.push('sistema.version is empty');
  if (data.sistema.componentes.filter((c) => !blank(c)).length === 0) {
    problems.push('sistema.componentes is empty (art. 15.1.d)');
  }
  if (!data.sistema.soloVerifactu && data.sistema.tiposFirma.filter((t) => !blank(t)).length === 0) {
    problems.push('sistema.tiposFirma is required when the system is not VERI*FACTU-only (art. 15.1.g)');
  }
  if (data.sistema.indicadorMultiplesOT && !data.sistema.multiOT) {
    problems.push('indicadorMultiplesOT is set but the system does not allow several obligados (multiOT)');
  }
  if (blank(data.lugar)) problems.push('lugar is empty');
  if (Number.isNaN(data.fecha.getTime())) problems.push('fecha is not a valid date');
  return problems;
}

function assertComplete(data: DeclarationData): void {
  const problems = declarationProblems(data);
  if (problems.length > 0) throw new Error(`incomplete declaración responsable: ${problems.join('; ')}`);
}

const siNo = (v: boolean): string => (v ? 'Sí' : 'No');
const nonBlank = (xs: string[]): string[] => xs.map((x) => x.trim()).filter((x) => x !== '');

type Apartado = { letra: string; etiqueta: string; valores: string[]; lista?: boolean };

/** The art. 15.1 items in their legal order, as plain text (shared by the HTML and the PDF). */
function apartados(data: DeclarationData): Apartado[] {
  const { productor, sistema } = data;
  const firma = nonBlank(sistema.tiposFirma);
  return [
    { letra: 'a', etiqueta: 'Nombre del sistema informático a que se refiere esta declaración responsable', valores: [sistema.nombre] },
    { letra: 'b', etiqueta: 'Código identificador del sistema informático (IdSistemaInformatico)', valores: [sistema.idSistemaInformatico] },
    { letra: 'c', etiqueta: 'Identificador completo de la versión concreta del sistema informático', valores: [sistema.version] },
    {
      letra: 'd',
      etiqueta: 'Componentes, hardware y software, de que consta el sistema informático, con una breve descripción de lo que hace y de sus principales funcionalidades',
      valores: nonBlank(sistema.componentes),
      lista: true,
    },
    {
      letra: 'e',
      etiqueta: 'Indicación de si el sistema informático se ha producido de tal manera que, a los efectos del Reglamento, solo pueda funcionar exclusivamente como «VERI*FACTU»',
      valores: [siNo(sistema.soloVerifactu)],
    },
    {
      letra: 'f',
      etiqueta: 'Indicación de si el sistema informático permite ser usado por varios obligados tributarios o por un mismo usuario para dar soporte a la facturación de varios obligados tributarios',
      valores: [
        siNo(sistema.multiOT),
        `Uso por varios obligados tributarios en esta instalación (IndicadorMultiplesOT): ${siNo(sistema.indicadorMultiplesOT)}`,
      ],
    },
    {
      letra: 'g',
      etiqueta: 'Tipos de firma utilizados para firmar los registros de facturación y de evento, en caso de que el sistema no sea de uso exclusivo como «VERI*FACTU»',
      valores: firma.length > 0 ? firma : [NO_FIRMA],
      lista: firma.length > 0,
    },
    { letra: 'h', etiqueta: 'Nombre y apellidos o razón social de la persona o entidad productora del sistema informático', valores: [productor.nombreRazon] },
    { letra: 'i', etiqueta: 'Número de identificación fiscal (NIF) de la persona o entidad productora', valores: [productor.nif] },
    {
      letra: 'j',
      etiqueta: 'Dirección postal completa de contacto de la persona o entidad productora',
      valores: [productor.direccion?.trim() || SIN_DIRECCION],
    },
    {
      letra: 'k',
      etiqueta: 'Declaración de cumplimiento: el sistema informático a que se refiere esta declaración responsable',
      valores: [...COMPLIANCE_STATEMENTS],
      lista: true,
    },
    {
      letra: 'l',
      etiqueta: 'Fecha y lugar en los que la persona o entidad productora suscribe esta declaración responsable',
      valores: [`Fecha: ${formatFechaDeclaracion(data.fecha)}`, `Lugar: ${data.lugar}`],
    },
  ];
}

// ---------------------------------------------------------------- HTML

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const listItems = (xs: string[]): string => xs.map((x) => `<li>${escapeHtml(x)}</li>`).join('');

export const DECLARATION_PLACEHOLDERS = [
  'sistemaNombre',
  'idSistemaInformatico',
  'version',
  'componentes',
  'soloVerifactu',
  'multiOT',
  'indicadorMultiplesOT',
  'tiposFirma',
  'productorNombreRazon',
  'productorNif',
  'productorDireccion',
  'fecha',
  'lugar',
] as const;
type Placeholder = (typeof DECLARATION_PLACEHOLDERS)[number];

const isPlaceholder = (key: string): key is Placeholder =>
  (DECLARATION_PLACEHOLDERS as readonly string[]).includes(key);

/** Placeholder → already-escaped HTML (lists become `<li>` items). */
function placeholderValues(data: DeclarationData): Record<Placeholder, string> {
  const { productor, sistema } = data;
  const firma = nonBlank(sistema.tiposFirma);
  return {
    sistemaNombre: escapeHtml(sistema.nombre),
    idSistemaInformatico: escapeHtml(sistema.idSistemaInformatico),
    version: escapeHtml(sistema.version),
    componentes: listItems(nonBlank(sistema.componentes)),
    soloVerifactu: siNo(sistema.soloVerifactu),
    multiOT: siNo(sistema.multiOT),
    indicadorMultiplesOT: siNo(sistema.indicadorMultiplesOT),
    tiposFirma: listItems(firma.length > 0 ? firma : [NO_FIRMA]),
    productorNombreRazon: escapeHtml(productor.nombreRazon),
    productorNif: escapeHtml(productor.nif),
    productorDireccion: escapeHtml(productor.direccion?.trim() || SIN_DIRECCION),
    fecha: escapeHtml(formatFechaDeclaracion(data.fecha)),
    lugar: escapeHtml(data.lugar),
  };
}

const PLACEHOLDER_RE = /\{\{\s*([A-Za-z][A-Za-z0-9]*)\s*\}\}/g;

/** Fills `{{placeholders}}` in one pass (values are never re-scanned); every value is escaped. */
export function renderDeclarationHtml(template: string, data: DeclarationData): string {
  assertComplete(data);
  const values = placeholderValues(data);
  const used = new Set<string>();
  const html = template.replace(PLACEHOLDER_RE, (_m, key: string) => {
    if (!isPlaceholder(key)) throw new Error(`unknown placeholder {{${key}}} in the declaration template`);
    used.add(key);
    return values[key];
  });
  // A template that drops an item would yield a legally incomplete declaration.
  const missing = DECLARATION_PLACEHOLDERS.filter((k) => !used.has(k));
  if (missing.length > 0) throw new Error(`declaration template lacks {{${missing.join('}}, {{')}}}`);
  return html;
}

// ---------------------------------------------------------------- PDF

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const FOOTER = 28;
const TEXT_WIDTH = A4[0] - 2 * MARGIN;
const INDENT = 14;
const BULLET = '•';
const INK = rgb(0.1, 0.1, 0.1);

type Fonts = { regular: PDFFont; bold: PDFFont };

/** WinAnsi covers Spanish (á, ñ, «», €, –); anything else becomes '?' instead of throwing. */
function winAnsiSanitizer(fonts: Fonts): (s: string) => string {
  const ok = new Map<string, boolean>();
  const encodable = (ch: string): boolean => {
    let v = ok.get(ch);
    if (v === undefined) {
      try {
        fonts.regular.encodeText(ch);
        fonts.bold.encodeText(ch);
        v = true;
      } catch {
        v = false;
      }
      ok.set(ch, v);
    }
    return v;
  };
  return (s) =>
    Array.from(s.normalize('NFC').replace(/\t/g, ' ').replace(/[\u0000-\u001f\u007f]/g, ''))
      .map((ch) => (encodable(ch) ? ch : '?'))
      .join('');
}

/** Greedy word wrap; words wider than the line are cut by characters. */
export function wrapText(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const width = (s: string): number => font.widthOfTextAtSize(s, size);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/ +/).filter((w) => w !== '')) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (width(candidate) <= maxWidth) {
      line = candidate;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    let rest = word;
    while (width(rest) > maxWidth) {
      let cut = rest.length - 1;
      while (cut > 1 && width(rest.slice(0, cut)) > maxWidth) cut--;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

class PdfWriter {
  private page: PDFPage;
  private y = 0;
  readonly pages: PDFPage[] = [];

  constructor(
    private readonly doc: PDFDocument,
    private readonly fonts: Fonts,
    private readonly clean: (s: string) => string,
  ) {
    this.page = this.newPage();
  }

  private newPage(): PDFPage {
    this.page = this.doc.addPage(A4);
    this.pages.push(this.page);
    this.y = A4[1] - MARGIN;
    return this.page;
  }

  gap(points: number): void {
    this.y -= points;
  }

  /** Draws a paragraph, wrapping and breaking pages; `bullet` hangs in the indent. */
  paragraph(text: string, opts: { size: number; bold?: boolean; indent?: number; bullet?: boolean }): void {
    const font = opts.bold ? this.fonts.bold : this.fonts.regular;
    const indent = opts.indent ?? 0;
    const leading = opts.size * 1.35;
    for (const raw of this.clean(text).split('\n')) {
      const lines = wrapText(raw, font, opts.size, TEXT_WIDTH - indent);
      lines.forEach((line, i) => {
        if (this.y - leading < MARGIN + FOOTER) this.newPage();
        this.y -= leading;
        if (opts.bullet && i === 0) {
          this.page.drawText(BULLET, { x: MARGIN + indent - 9, y: this.y, size: opts.size, font, color: INK });
        }
        this.page.drawText(line, { x: MARGIN + indent, y: this.y, size: opts.size, font, color: INK });
      });
    }
  }

  footers(texto: string): void {
    this.pages.forEach((page, i) => {
      const label = this.clean(`${texto} · Página ${i + 1} de ${this.pages.length}`);
      const size = 8;
      const w = this.fonts.regular.widthOfTextAtSize(label, size);
      page.drawText(label, { x: (A4[0] - w) / 2, y: MARGIN / 2, size, font: this.fonts.regular, color: INK });
    });
  }
}

export async function renderDeclarationPdf(data: DeclarationData): Promise<Uint8Array> {
  assertComplete(data);
  // No automatic metadata: pdf-lib would stamp the current time and its own producer.
  const doc = await PDFDocument.create({ updateMetadata: false });
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };
  const clean = winAnsiSanitizer(fonts);
  const { sistema, productor } = data;

  doc.setTitle(clean(`Declaración responsable — ${sistema.nombre} ${sistema.version}`));
  doc.setAuthor(clean(productor.nombreRazon));
  doc.setSubject('Declaración responsable del sistema informático de facturación (RD 1007/2023, Orden HAC/1177/2024)');
  doc.setKeywords(['declaración responsable', 'VERI*FACTU', 'RD 1007/2023', 'HAC/1177/2024']);
  doc.setCreator(clean(`${sistema.nombre} ${sistema.version}`));
  doc.setProducer(clean(`${sistema.nombre} ${sistema.version} (pdf-lib)`));
  doc.setLanguage('es-ES');
  doc.setCreationDate(data.fecha);
  doc.setModificationDate(data.fecha);

  const w = new PdfWriter(doc, fonts, clean);
  w.paragraph(TITULO.toUpperCase(), { size: 14, bold: true });
  w.gap(6);
  w.paragraph(PREAMBULO, { size: 9.5 });
  w.gap(4);
  w.paragraph(
    `${productor.nombreRazon}, con NIF ${productor.nif}, como persona o entidad productora del sistema informático de facturación que se identifica a continuación, declara bajo su responsabilidad:`,
    { size: 10 },
  );
  for (const a of apartados(data)) {
    w.gap(8);
    w.paragraph(`${a.letra}) ${a.etiqueta}`, { size: 10, bold: true });
    for (const v of a.valores) {
      w.gap(1);
      w.paragraph(v, { size: 10, indent: INDENT + (a.lista ? 6 : 0), bullet: a.lista === true });
    }
  }
  w.gap(16);
  w.paragraph(`En ${data.lugar}, a ${formatFechaDeclaracion(data.fecha)}.`, { size: 10 });
  w.gap(4);
  w.paragraph(`Firmado: ${productor.nombreRazon}`, { size: 10, bold: true });
  w.gap(12);
  w.paragraph(NOTA_FINAL, { size: 8.5 });
  w.footers(`${sistema.nombre} ${sistema.version} · ${TITULO}`);

  return doc.save();
}
