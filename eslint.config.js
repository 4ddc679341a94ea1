// @ts-check
import importPlugin from 'eslint-plugin-import';
import tseslint from 'typescript-eslint';

/** The import boundaries of DESIGN.md §2, enforced. */
const boundaries = [
  // The engine is a plain Node library: never Electron, React or the desktop folders.
  { target: './engine/src', from: './src-main' },
  { target: './engine/src', from: './src-renderer' },
  // Only the headless composition root may start the emulators.
  { target: './engine/src', from: './engine/emulators', except: [] },
  // Emulators must check the engine independently: no engine code.
  { target: './engine/emulators', from: './engine/src' },
  { target: './engine/emulators', from: './src-main' },
  { target: './engine/emulators', from: './src-renderer' },
  // The renderer reaches the engine only over HTTP and the OS only through the preload bridge.
  { target: './src-renderer', from: './engine' },
  { target: './src-renderer', from: './src-main' },
  // Shared schemas import zod only.
  { target: './src-shared', from: './engine' },
  { target: './src-shared', from: './src-main' },
  { target: './src-shared', from: './src-renderer' },
  // Main uses the engine only through its public entry.
  { target: './src-main', from: './engine/src', except: ['./index.ts'] },
  { target: './src-main', from: './src-renderer' },
  // The sandboxed preload: src-shared (and electron) only, nothing else of main or the engine.
  { target: './src-main/preload', from: './engine' },
  { target: './src-main/preload', from: './src-main', except: ['./preload'] },
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'release/**', 'data/**', 'test-artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    plugins: { import: importPlugin },
    settings: {
      'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.json'] } },
    },
    rules: {
      'import/no-restricted-paths': ['error', { zones: boundaries }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['engine/**/*.ts', 'src-shared/**/*.ts', 'src-main/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'react', message: 'no React outside src-renderer' }, { name: 'react-dom', message: 'no React outside src-renderer' }] },
      ],
    },
  },
  {
    files: ['engine/**/*.ts', 'src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'the engine never imports electron (DESIGN.md §2)' },
            { name: 'react', message: 'no React outside src-renderer' },
            { name: 'react-dom', message: 'no React outside src-renderer' },
          ],
        },
      ],
    },
  },
  {
    // The renderer is a browser page: no Node built-ins, no Electron (the OS only through the
    // preload bridge, window.till), the engine only over HTTP. Type-aware TS makes no-undef moot.
    files: ['src-renderer/**/*.ts', 'src-renderer/**/*.tsx'],
    languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'the renderer reaches the OS only through the preload bridge (window.till)' }],
          patterns: [
            { regex: '^node:', message: 'the renderer is a browser page: no Node built-ins' },
            {
              regex: '^(fs|path|os|child_process|crypto|net|http|https|worker_threads|module|url|util|stream|zlib|better-sqlite3|fastify|kysely)(/|$)',
              message: 'the renderer is a browser page: no Node modules, no engine libraries',
            },
          ],
        },
      ],
    },
  },
  {
    // The preload runs sandboxed: electron and src-shared only.
    files: ['src-main/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!electron$|\\.{1,2}/)', message: 'the sandboxed preload imports electron and src-shared only' }] },
      ],
    },
  },
  {
    // The start shared by `npm start` and the desktop's engine process is the one place that
    // composes engine and emulators.
    files: ['engine/src/bin/start.ts'],
    rules: { 'import/no-restricted-paths': 'off' },
  },
  {
    files: ['src-shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!zod$|\\.{1,2}/)', message: 'src-shared imports zod only' }] },
      ],
    },
  },
);
