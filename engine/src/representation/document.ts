// The representation document: the issuer (otorgante) authorises the account holder (the
// representative that files with its own certificate) to send its billing records to the tax
// authority of its `hacienda`. Our own model of a private representation document — not an
// official AEAT or foral form. Rendered with pdf-lib; byte-for-byte reproducible for the same data
// and date. The document id goes into the PDF's keywords so a copy signed elsewhere is recognised.
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { Direccion, TipoUsuario } from '../../../src-shared/api/clientes';
import type { Hacienda } from '../../../src-shared/api/common';
import { formatFechaDeclaracion, wrapText } from '../compliance/declaration';

export interface RepresentationData {
  documentoId: string;
  hacienda: Hacienda;
  otorgante: { nif: string; nombre: string; tipoUsuario: TipoUsuario; direccion: Direccion; epigrafeIAE?: string };
  /** The person who signs for a company (`empresa`). */
  representanteLegal?: { nif: string; nombre: string; direccion: Direccion };
  /** The account holder who files on the issuer's behalf. */
  apoderado: { nif: string; nombre: string };
  software: string;
  fecha: Date;
}

export const KEYWORD_PREFIX = 'representacion-doc:';

const AUTORIDAD: Record<Hacienda, { titulo: string; objeto: string }> = {
  verifactu: {
    titulo: 'ante la Agencia Estatal de Administración Tributaria (VERI*FACTU)',
    objeto:
      'remitir en su nombre, por medios electrónicos, a la Agencia Estatal de Administración Tributaria los registros de facturación de alta y de anulación que genere su sistema informático de facturación en la modalidad VERI*FACTU (Reglamento aprobado por el Real Decreto 1007/2023 y Orden HAC/1177/2024), atender las respuestas de dichos envíos, subsanar los registros rechazados y consultar su estado',
  },
  'tbai-araba': {
    titulo: 'ante la Diputación Foral de Álava (TicketBAI)',
    objeto:
      'remitir en su nombre al Departamento de Hacienda de la Diputación Foral de Álava los ficheros TicketBAI de sus facturas y anulaciones, atender las respuestas de dichos envíos, subsanar los rechazados y consultar su estado',
  },
  'tbai-bizkaia': {
    titulo: 'ante la Diputación Foral de Bizkaia (TicketBAI y Batuz)',
    objeto:
      'remitir en su nombre al Departamento de Hacienda y Finanzas de la Diputación Foral de Bizkaia los ficheros TicketBAI de sus facturas y anulaciones y los correspondientes envíos del Libro Registro de Operaciones Económicas (LROE, Batuz), atender las respuestas de dichos envíos, subsanar los rechazados y consultar su estado',
  },
  'tbai-gipuzkoa': {
    titulo: 'ante la Diputación Foral de Gipuzkoa (TicketBAI)',
    objeto:
      'remitir en su nombre al Departamento de Hacienda y Finanzas de la Diputación Foral de Gipuzkoa los ficheros TicketBAI de sus facturas y anulaciones, atender las respuestas de dichos envíos, subsanar los rechazados y consultar su estado',
  },
};

export function formatDireccion(d: Direccion): string {
  return `${d.calle} ${d.numero}, ${d.codigoPostal} ${d.ciudad} (${d.provincia})`;
}

function sanitizer(fonts: PDFFont[]): (s: string) => string {
  const ok = new Map<string, boolean>();
  return (s) =>
    Array.from(s.normalize('NFC').replace(/[\u0000-\u001f\u007f]/g, ' '))
      .map((ch) => {
        let v = ok.get(ch);
        if (v === undefined) {
          try {
            for (const f of fonts) f.encodeText(ch);
            v = true;
          } catch {
            v = false;
          }
          ok.set(ch, v);
        }
        return v ? ch : '?';
      })
      .join('');
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const WIDTH = A4[0] - 2 * MARGIN;
const INK = rgb(0.1, 0.1, 0.1);
const GREY = rgb(0.4, 0.4, 0.4);

export async function renderRepresentationPdf(data: RepresentationData): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const clean = sanitizer([regular, bold]);
  const autoridad = AUTORIDAD[data.hacienda];

  doc.setTitle(clean(`Otorgamiento de representación ${autoridad.titulo}`));
  doc.setSubject(clean(`Representación de ${data.otorgante.nombre} (${data.otorgante.nif})`));
  doc.setKeywords(['representacion', `${KEYWORD_PREFIX}${data.documentoId}`, `nif:${data.otorgante.nif}`]);
  doc.setAuthor(clean(data.apoderado.nombre));
  doc.setCreator(clean(data.software));
  doc.setProducer('pdf-lib');
  doc.setCreationDate(data.fecha);
  doc.setModificationDate(data.fecha);

  let page: PDFPage = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const ensure = (h: number) => {
    if (y - h < MARGIN + 40) {
      page = doc.addPage(A4);
      y = A4[1] - MARGIN;
    }
  };
  const paragraph = (text: string, opts: { font?: PDFFont; size?: number; gap?: number; color?: typeof INK } = {}) => {
    const font = opts.font ?? regular;
    const size = opts.size ?? 10;
    for (const line of wrapText(clean(text), font, size, WIDTH)) {
      ensure(size + 4);
      page.drawText(line, { x: MARGIN, y: y - size, size, font, color: opts.color ?? INK });
      y -= size + 4;
    }
    y -= opts.gap ?? 6;
  };
  const field = (label: string, value: string) => paragraph(`${label}: ${value}`, { gap: 2 });

  paragraph('OTORGAMIENTO DE REPRESENTACIÓN', { font: bold, size: 16, gap: 2 });
  paragraph(`para la remisión de registros de facturación ${autoridad.titulo}`, { font: bold, size: 11, gap: 14 });

  paragraph('1. Otorgante', { font: bold, size: 11 });
  const o = data.otorgante;
  field('Nombre o razón social', o.nombre);
  field('NIF', o.nif);
  field('Domicilio fiscal', formatDireccion(o.direccion));
  field('Condición', o.tipoUsuario === 'autonomo' ? 'Empresario o profesional persona física (autónomo)' : 'Persona jurídica o entidad');
  if (o.epigrafeIAE) field('Epígrafe IAE (LROE)', o.epigrafeIAE);
  y -= 6;

  if (data.representanteLegal) {
    const r = data.representanteLegal;
    paragraph('2. Representante legal del otorgante, que firma en su nombre', { font: bold, size: 11 });
    field('Nombre', r.nombre);
    field('NIF', r.nif);
    field('Domicilio', formatDireccion(r.direccion));
    y -= 6;
  }

  const n = data.representanteLegal ? 3 : 2;
  paragraph(`${n}. Representante (apoderado)`, { font: bold, size: 11 });
  field('Nombre o razón social', data.apoderado.nombre);
  field('NIF', data.apoderado.nif);
  y -= 6;

  paragraph(`${n + 1}. Objeto`, { font: bold, size: 11 });
  paragraph(`El otorgante autoriza al representante a ${autoridad.objeto}, utilizando para ello el certificado electrónico del representante.`);
  paragraph(`${n + 2}. Vigencia`, { font: bold, size: 11 });
  paragraph(
    'La representación surte efecto desde la firma de este documento y se mantiene hasta su revocación expresa, comunicada por escrito al representante. El otorgante declara que los datos de este documento son ciertos.',
  );

  y -= 10;
  paragraph(`En ${o.direccion.ciudad}, a ${formatFechaDeclaracion(data.fecha)}.`, { gap: 18 });
  const firmante = data.representanteLegal ? `${data.representanteLegal.nombre} (NIF ${data.representanteLegal.nif}), en nombre de ${o.nombre}` : `${o.nombre} (NIF ${o.nif})`;
  paragraph('Firma electrónica del otorgante:', { font: bold, gap: 2 });
  paragraph(firmante, { gap: 60 });

  const pages = doc.getPages();
  pages.forEach((p, i) => {
    const foot = clean(`Documento ${data.documentoId} · generado ${data.fecha.toISOString()} · ${data.software} · página ${i + 1} de ${pages.length}`);
    p.drawText(foot, { x: MARGIN, y: MARGIN / 2, size: 7, font: regular, color: GREY });
  });
  return doc.save({ useObjectStreams: false });
}

/** The document id a PDF carries in its keywords (also in a copy signed elsewhere). */
export async function documentIdOf(pdf: Uint8Array): Promise<string | undefined> {
  try {
    const doc = await PDFDocument.load(pdf, { updateMetadata: false, ignoreEncryption: true });
    const keywords = doc.getKeywords() ?? '';
    const found = keywords.split(/[\s,;]+/).find((k) => k.startsWith(KEYWORD_PREFIX));
    return found?.slice(KEYWORD_PREFIX.length);
  } catch {
    return undefined;
  }
}
