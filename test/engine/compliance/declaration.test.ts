import { inflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { PDFArray, PDFDocument, PDFName, PDFRawStream, StandardFonts } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  COMPLIANCE_STATEMENTS,
  DECLARATION_PLACEHOLDERS,
  declarationProblems,
  formatFechaDeclaracion,
  loadDeclarationTemplate,
  renderDeclarationHtml,
  renderDeclarationPdf,
} from '../../../engine/src/compliance/declaration';
import type { DeclarationData } from '../../../engine/src/compliance/declaration';

const ASSETS = fileURLToPath(new URL('../../../assets', import.meta.url));

// NIF and system ID: AEAT's VeriFactu documentation example 89890001K.
const base: DeclarationData = {
  productor: {
    nombreRazon: 'Cajas Registradoras Ejemplo, S.L.',
    nif: '89890001K',
    direccion: 'Calle Mayor 1, 28013 Madrid, España',
  },
  sistema: {
    nombre: 'TPV Compliance',
    idSistemaInformatico: 'TC',
    version: '1.4.2',
    componentes: [
      'Motor de cumplimiento (software): genera, encadena y conserva los registros de facturación.',
      'Interfaz de caja (software, navegador): captura la venta e imprime la factura con el QR.',
    ],
    soloVerifactu: false,
    multiOT: true,
    indicadorMultiplesOT: false,
    tiposFirma: ['XAdES Enveloped Signature con certificado cualificado (RSA, SHA-256)'],
  },
  lugar: 'Madrid, España',
  // 23:30 UTC on 31 Dec is already 1 January in Madrid.
  fecha: new Date('2025-12-31T23:30:00Z'),
};

const clone = (d: DeclarationData): DeclarationData => structuredClone(d);
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

let template = '';
beforeAll(async () => {
  template = await loadDeclarationTemplate(ASSETS);
});

describe('formatFechaDeclaracion', () => {
  it('writes day, month and year in that order, as the date in Spain', () => {
    expect(formatFechaDeclaracion(base.fecha)).toBe('1 de enero de 2026');
    expect(formatFechaDeclaracion(new Date('2024-10-17T10:00:00Z'))).toBe('17 de octubre de 2024');
  });
});

describe('declarationProblems', () => {
  it('accepts the base data', () => {
    expect(declarationProblems(base)).toEqual([]);
  });

  it('requires signature types unless the system is VERI*FACTU-only (art. 15.1.g)', () => {
    const d = clone(base);
    d.sistema.tiposFirma = [];
    expect(declarationProblems(d).join()).toMatch(/tiposFirma/);
    d.sistema.soloVerifactu = true;
    expect(declarationProblems(d)).toEqual([]);
  });

  it('flags missing items and contradictions', () => {
    const d = clone(base);
    d.productor.nombreRazon = ' ';
    d.sistema.componentes = [];
    d.sistema.idSistemaInformatico = 'TOO';
    d.sistema.multiOT = false;
    d.sistema.indicadorMultiplesOT = true;
    d.fecha = new Date(Number.NaN);
    expect(declarationProblems(d)).toHaveLength(5);
  });
});

describe('renderDeclarationHtml', () => {
  it('loads the template with every placeholder', () => {
    for (const p of DECLARATION_PLACEHOLDERS) expect(template).toContain(`{{${p}}}`);
  });

  it('contains every required item of art. 15.1 in order, with the data', () => {
    const html = renderDeclarationHtml(template, base);
    const text = squash(html);
    const headings = [...'abcdefghijkl'].map((l) => text.indexOf(`<h2>${l}) `));
    expect(headings.every((i) => i > 0)).toBe(true);
    expect([...headings].sort((x, y) => x - y)).toEqual(headings);

    for (const v of [
      'Cajas Registradoras Ejemplo, S.L.',
      '89890001K',
      'Calle Mayor 1, 28013 Madrid, España',
      'TPV Compliance',
      '<p>TC</p>',
      '1.4.2',
      'Motor de cumplimiento (software)',
      'Interfaz de caja (software, navegador)',
      'XAdES Enveloped Signature',
      'exclusivamente como «VERI*FACTU»</h2> <p>No</p>',
      'varios obligados tributarios</h2> <p>Sí</p>',
      '(IndicadorMultiplesOT): No',
      'Fecha: 1 de enero de 2026',
      'Lugar: Madrid, España',
      'En Madrid, España, a 1 de enero de 2026.',
    ]) {
      expect(text, v).toContain(v);
    }
    expect(html).not.toMatch(/\{\{\s*[A-Za-z]/);
  });

  it('carries the compliance statements of LGT 29.2.j, RD 1007/2023 and Orden HAC/1177/2024', () => {
    const text = squash(renderDeclarationHtml(template, base));
    expect(COMPLIANCE_STATEMENTS).toHaveLength(3);
    for (const s of COMPLIANCE_STATEMENTS) expect(text).toContain(s);
    expect(text).toContain('artículo 29.2.j) de la Ley 58/2003');
    expect(text).toContain('Real Decreto 1007/2023');
    expect(text).toContain('Orden HAC/1177/2024');
  });

  it('escapes every value', () => {
    const d = clone(base);
    d.productor.nombreRazon = 'A&B <script>alert(1)</script> "SL"';
    d.productor.direccion = "O'Donnell 5 <b>";
    d.sistema.nombre = 'Caja<1> & Co';
    d.sistema.version = '2.0 {{lugar}}';
    d.sistema.componentes = ['<img src=x onerror=alert(1)>'];
    d.sistema.tiposFirma = ['RSA & ECDSA'];
    d.lugar = 'Bilbao & <Bizkaia>, España';
    const html = renderDeclarationHtml(template, d);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('A&amp;B &lt;script&gt;alert(1)&lt;/script&gt; &quot;SL&quot;');
    expect(html).toContain('O&#39;Donnell 5 &lt;b&gt;');
    expect(html).toContain('<title>Declaración responsable — Caja&lt;1&gt; &amp; Co 2.0 {{lugar}}</title>');
    expect(html).toContain('<li>&lt;img src=x onerror=alert(1)&gt;</li>');
    expect(html).toContain('<li>RSA &amp; ECDSA</li>');
    expect(html).toContain('Bilbao &amp; &lt;Bizkaia&gt;, España');
    // Values are not re-scanned for placeholders.
    expect(html).not.toContain('2.0 Bilbao');
  });

  it('says signatures do not apply to a VERI*FACTU-only system without them', () => {
    const d = clone(base);
    d.sistema.soloVerifactu = true;
    d.sistema.tiposFirma = [];
    delete d.productor.direccion;
    const text = squash(renderDeclarationHtml(template, d));
    expect(text).toContain('<li>No aplica: el sistema funciona exclusivamente como «VERI*FACTU»');
    expect(text).toContain('<p>No indicada.</p>');
  });

  it('refuses incomplete data and broken templates', () => {
    const d = clone(base);
    d.sistema.componentes = [];
    expect(() => renderDeclarationHtml(template, d)).toThrow(/componentes/);
    expect(() => renderDeclarationHtml(`${template}{{nope}}`, base)).toThrow(/unknown placeholder \{\{nope\}\}/);
    expect(() => renderDeclarationHtml(template.replace('{{tiposFirma}}', ''), base)).toThrow(
      /lacks \{\{tiposFirma\}\}/,
    );
  });
});

// pdf-lib cannot extract text. Page content streams are Flate-compressed and, with the standard
// fonts, each line is a WinAnsi hex string drawn with Tj; decoding those is enough here.
const CP1252: Record<number, string> = { 0x80: '€', 0x95: '•', 0x96: '–', 0x97: '—' };
function pageTexts(doc: PDFDocument): string[] {
  return doc.getPages().map((page) => {
    const contents = page.node.get(PDFName.of('Contents'));
    const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
    const streams = refs.map((r) => doc.context.lookup(r));
    return streams
      .map((s) => {
        if (!(s instanceof PDFRawStream)) throw new Error('unexpected content stream type');
        const ops = Buffer.from(inflateSync(s.contents)).toString('latin1');
        return [...ops.matchAll(/<([0-9A-Fa-f]*)> Tj/g)]
          .map((m) => {
            const bytes = Buffer.from(m[1] ?? '', 'hex');
            return [...bytes].map((b) => CP1252[b] ?? String.fromCharCode(b)).join('');
          })
          .join('\n');
      })
      .join('\n');
  });
}

describe('renderDeclarationPdf', () => {
  it('is a PDF that pdf-lib parses back, with title and producer metadata', async () => {
    const bytes = await renderDeclarationPdf(base);
    expect(Buffer.from(bytes.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(doc.getPageCount()).toBeGreaterThanOrEqual(1);
    expect(doc.getTitle()).toBe('Declaración responsable — TPV Compliance 1.4.2');
    expect(doc.getProducer()).toBe('TPV Compliance 1.4.2 (pdf-lib)');
    expect(doc.getAuthor()).toBe('Cajas Registradoras Ejemplo, S.L.');
    expect(doc.getCreationDate()?.toISOString()).toBe('2025-12-31T23:30:00.000Z');
    expect(doc.getModificationDate()?.toISOString()).toBe('2025-12-31T23:30:00.000Z');
  });

  it('gives byte-identical output for the same data', async () => {
    const a = await renderDeclarationPdf(base);
    const b = await renderDeclarationPdf(clone(base));
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0);
    const other = clone(base);
    other.fecha = new Date('2026-01-02T10:00:00Z');
    expect(Buffer.compare(Buffer.from(a), Buffer.from(await renderDeclarationPdf(other)))).not.toBe(0);
  });

  it('draws the items, data and statements (checked in the content streams)', async () => {
    const doc = await PDFDocument.load(await renderDeclarationPdf(base));
    const text = pageTexts(doc).join('\n');
    const flat = squash(text);
    for (const v of [
      'TPV Compliance',
      '89890001K',
      'Cajas Registradoras Ejemplo, S.L.',
      'a) Nombre del sistema informático',
      'l) Fecha y lugar',
      '«VERI*FACTU»',
      'Fecha: 1 de enero de 2026',
      'Lugar: Madrid, España',
      'Real Decreto 1007/2023',
      'Orden HAC/1177/2024',
      '•',
    ]) {
      expect(flat, v).toContain(v);
    }
    // Statements are wrapped over several lines; compare them with the line breaks removed.
    for (const s of COMPLIANCE_STATEMENTS) expect(flat).toContain(s);
  });

  it('wraps long lines inside the margins and breaks pages', async () => {
    const d = clone(base);
    const long = 'Componente con una descripción muy larga que debe partirse en varias líneas. ';
    d.sistema.componentes = Array.from({ length: 60 }, (_, i) => `${i + 1}. ${long.repeat(3)}`);
    d.sistema.componentes.push(`Ruta sin espacios ${'x'.repeat(400)}`);
    const doc = await PDFDocument.load(await renderDeclarationPdf(d));
    expect(doc.getPageCount()).toBeGreaterThan(2);
    const texts = pageTexts(doc);
    expect(texts.at(-1)).toContain(`Página ${doc.getPageCount()} de ${doc.getPageCount()}`);
    // Component lines are 10 pt Helvetica, indented 20 pt inside 56 pt margins.
    const font = await (await PDFDocument.create()).embedFont(StandardFonts.Helvetica);
    const bodyLines = texts.join('\n').split('\n').filter((l) => /Componente|xxxx|partirse/.test(l));
    expect(bodyLines.length).toBeGreaterThan(120);
    for (const line of bodyLines) {
      expect(font.widthOfTextAtSize(line, 10), line).toBeLessThanOrEqual(595.28 - 2 * 56 - 20);
    }
    expect(texts.join('\n')).toContain('x'.repeat(50));
  });

  it('replaces characters WinAnsi cannot encode instead of failing', async () => {
    const d = clone(base);
    d.sistema.nombre = 'Caja 收银 ✓';
    const doc = await PDFDocument.load(await renderDeclarationPdf(d));
    expect(pageTexts(doc).join('\n')).toContain('Caja ?? ?');
  });

  it('refuses incomplete data', async () => {
    const d = clone(base);
    d.lugar = '';
    await expect(renderDeclarationPdf(d)).rejects.toThrow(/lugar/);
  });
});
