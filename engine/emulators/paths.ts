import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The official schemas shipped in the repository (assets/reference, see its README). */
export const SHIPPED_REFERENCE_DIR = path.resolve(fileURLToPath(import.meta.url), '../../../assets/reference');

/**
 * Where the emulators read the official XSDs: POS_REFERENCE_DIR when set (the installed desktop app
 * points it at resources/reference), else the copy shipped in the repository.
 */
export function referenceDir(override?: string): string {
  const dir = override ?? process.env.POS_REFERENCE_DIR ?? SHIPPED_REFERENCE_DIR;
  if (!existsSync(path.join(dir, 'verifactu', 'xsd', 'SuministroLR.xsd'))) {
    throw new Error(`Official XSDs not found under ${dir} (POS_REFERENCE_DIR must point at a folder laid out like assets/reference)`);
  }
  return dir;
}
