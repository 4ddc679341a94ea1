import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The shared reference folder (XSDs, official docs) lives next to the repo:
 * <repo>/../shared/reference. POS_REFERENCE_DIR overrides it.
 */
export function referenceDir(override?: string): string {
  const dir =
    override ??
    process.env.POS_REFERENCE_DIR ??
    // engine/emulators/paths.ts -> engine/emulators -> engine -> <repo> -> <repo>/..
    path.resolve(fileURLToPath(import.meta.url), '../../../../shared/reference');
  if (!existsSync(path.join(dir, 'verifactu', 'xsd', 'SuministroLR.xsd'))) {
    throw new Error(`VeriFactu reference files not found under ${dir} (set POS_REFERENCE_DIR)`);
  }
  return dir;
}
