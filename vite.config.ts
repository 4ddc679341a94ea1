// Builds of the desktop till:
//   vite build                → out/renderer   the till UI (React), served by the panel API
//   vite build --mode main    → out/main       Electron main + the engine's utility-process entry and its worker threads' entries (ESM)
//   vite build --mode preload → out/preload    the sandboxed preload (one CommonJS file)
import { builtinModules } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';

const root = import.meta.dirname;
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/** Bare imports stay external in main and the engine: electron-builder ships node_modules. */
const isExternal = (id: string) => id === 'electron' || nodeBuiltins.includes(id) || (!id.startsWith('.') && !path.isAbsolute(id) && !id.startsWith('\0'));

const renderer: UserConfig = {
  root: path.join(root, 'src-renderer'),
  base: '/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: path.join(root, 'out/renderer'),
    emptyOutDir: true,
    target: 'chrome120',
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1500,
  },
};

const main: UserConfig = {
  logLevel: 'warn',
  build: {
    outDir: path.join(root, 'out/main'),
    emptyOutDir: true,
    target: 'node20',
    ssr: true,
    sourcemap: true,
    reportCompressedSize: false,
    rollupOptions: {
      input: {
        main: path.join(root, 'src-main/main.ts'),
        'engine-utility': path.join(root, 'engine/src/bin/utility.ts'),
        // The engine's worker threads load these files beside engine-utility.js (pure-work/pure-work.ts).
        'engine-pure-work': path.join(root, 'engine/src/pure-work/pure-work-worker.ts'),
        // The filing thread (submission and webhook workers) loads this one (filing/filing-thread.ts).
        'engine-filing': path.join(root, 'engine/src/filing/filing-thread-worker.ts'),
      },
      external: isExternal,
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
};

const preload: UserConfig = {
  logLevel: 'warn',
  build: {
    outDir: path.join(root, 'out/preload'),
    emptyOutDir: true,
    target: 'chrome120',
    ssr: true,
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      // A sandboxed preload may require only `electron` (and a few Node shims): zod is bundled in.
      input: { preload: path.join(root, 'src-main/preload/index.ts') },
      external: ['electron'],
      output: { format: 'cjs', entryFileNames: '[name].cjs' },
    },
  },
  ssr: { noExternal: true },
};

export default defineConfig(({ mode }) => (mode === 'main' ? main : mode === 'preload' ? preload : renderer));
