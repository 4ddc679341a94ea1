// @ts-check
import importX from 'eslint-plugin-import-x';
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
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'release/**', 'data/**', 'test-artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [importX.createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: boundaries }],
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
    // The headless start is the one place that composes engine and emulators.
    files: ['engine/src/bin/serve.ts'],
    rules: { 'import-x/no-restricted-paths': 'off' },
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
