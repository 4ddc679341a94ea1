import { defineConfig } from 'vitest/config';

// The till's end-to-end tests (test/e2e, Chromium against `npm start`) are part of `npm test`;
// TILL_E2E=0 leaves them out (e.g. on a machine without /usr/bin/chromium).
const skipE2e = process.env.TILL_E2E === '0';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...(skipE2e ? ['test/e2e/**'] : []), 'node_modules/**'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
