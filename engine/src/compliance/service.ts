import type { SoftwareIdentity } from './config';
import type { Database } from '../db/database';
import { DeclarationStore } from './store';
import type { Clock } from '../platform/clock';
import type { IdGenerator } from '../platform/ids';
import {
  loadDeclarationTemplate,
  renderDeclarationHtml,
  renderDeclarationPdf,
  type DeclarationData,
} from './declaration';

/** Stable per document type: a new publication changes `lastModified`, never the key. */
export const DECLARATION_KEY = 'cumplimiento/declaracion-responsable.pdf';
export const DECLARATION_HTML_KEY = 'cumplimiento/declaracion-responsable.html';

export interface PublishedDeclaration {
  key: string;
  version: number;
  lastModified: string;
  html: string;
  pdf: Uint8Array;
}

export interface RenderedDeclaration {
  publicadoEn: Date;
  html: string;
  pdf: Uint8Array;
}

/** The software's *declaración responsable* (RD 1007/2023 art. 13, Orden HAC/1177/2024). */
export class DeclarationService {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly assetsDir: string,
    private readonly software: SoftwareIdentity,
  ) {
    this.store = new DeclarationStore(db);
  }

  private readonly store: DeclarationStore;

  dataFor(fecha: Date): DeclarationData {
    const s = this.software;
    return {
      productor: { nombreRazon: s.productorNombre, nif: s.productorNif },
      sistema: {
        nombre: s.nombreSistema,
        idSistemaInformatico: s.idSistema,
        version: s.version,
        componentes: [
          'Motor de cumplimiento (Node.js) con base de datos SQLite local',
          'Aplicación de caja Electron (Windows y Linux)',
          'API local de facturación y gestión (HTTP, sólo 127.0.0.1)',
        ],
        soloVerifactu: true,
        multiOT: true,
        indicadorMultiplesOT: true,
        tiposFirma: ['XAdES-EPES (TicketBAI)', 'Huella SHA-256 encadenada (VERI*FACTU)'],
      },
      lugar: 'Madrid',
      fecha,
    };
  }

  async publish(): Promise<PublishedDeclaration> {
    return this.publishRendered(await this.render());
  }

  /** The declaration as of now, rendered (HTML and PDF) but not stored. */
  async render(): Promise<RenderedDeclaration> {
    const now = this.clock.now();
    const data = this.dataFor(now);
    const template = await loadDeclarationTemplate(this.assetsDir);
    return { publicadoEn: now, html: renderDeclarationHtml(template, data), pdf: await renderDeclarationPdf(data) };
  }

  /** Stores a rendered declaration as the next version; inside a caller's transaction, as part of it. */
  publishRendered(rendered: RenderedDeclaration): PublishedDeclaration {
    return this.db.transaction(() => {
      const last = this.current();
      const version = (last?.version ?? 0) + 1;
      const lastModified = rendered.publicadoEn.toISOString();
      this.store.insert({ id: this.ids.next('dec'), key: DECLARATION_KEY, version, publicadoEn: lastModified, html: rendered.html, pdf: rendered.pdf });
      return { key: DECLARATION_KEY, version, lastModified, html: rendered.html, pdf: rendered.pdf };
    });
  }

  current(): PublishedDeclaration | undefined {
    const row = this.store.latest(DECLARATION_KEY);
    return row
      ? { key: row.key, version: row.version, lastModified: row.publicadoEn, html: row.html, pdf: row.pdf }
      : undefined;
  }
}
