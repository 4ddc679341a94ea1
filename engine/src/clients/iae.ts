import { readFileSync } from 'node:fs';

/**
 * The IAE catalogue `epigrafeIAE` is checked against (LROE form: digits only, 1 to 7). Loaded from
 * a replaceable CSV (assets/iae/README.md says what it holds and what is certain).
 */
export class IaeCatalogue {
  private constructor(private readonly codes: ReadonlySet<string>) {}

  static fromCsv(text: string): IaeCatalogue {
    const rows = parseCsv(text.replace(/^\uFEFF/, ''));
    const header = rows.shift() ?? [];
    const names = header.map((h) => h.trim().toLowerCase());
    let column = names.indexOf('lroe_epigrafe');
    if (column < 0) column = names.indexOf('epigrafe');
    if (column < 0) column = 0;
    const codes = new Set<string>();
    for (const row of rows) {
      const code = (row[column] ?? '').trim();
      if (/^[0-9]{1,7}$/.test(code)) codes.add(code);
    }
    return new IaeCatalogue(codes);
  }

  static load(file: string): IaeCatalogue {
    return IaeCatalogue.fromCsv(readFileSync(file, 'utf8'));
  }

  has(code: string): boolean {
    return this.codes.has(code);
  }

  get size(): number {
    return this.codes.size;
  }
}

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '"') {
        if (text.charAt(i + 1) === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        field += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text.charAt(i + 1) === '\n') i++;
      row.push(field);
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
      field = '';
    } else {
      field += ch;
    }
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}
