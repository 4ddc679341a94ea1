// @ts-check
// The import graph of engine/src, checked by `npm run lint:deps` (part of `npm test`); see
// docs/architecture.md §2 for the layers. Type-only imports count: a folder needing another's
// types depends on it as much as one calling its code.

/** Folders holding a tax regime's own code: none may import another. */
const REGIME = '^engine/src/(?:regimes/)?(verifactu|ticketbai)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment: 'Folders of engine/src import downwards only: no cycle between folders.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^engine/src/' },
      to: { circular: true },
    },
    {
      name: 'no-import-of-the-composition-root',
      comment:
        'config.ts, context.ts and index.ts assemble the features; a feature importing them closes a cycle ' +
        '(only the adapters above them, http/, demo/ and bin/, may).',
      severity: 'error',
      from: { path: '^engine/src/[^/]+/', pathNot: '^engine/src/(http|demo|bin)/' },
      to: { path: '^engine/src/(config|context|index)\\.ts$' },
    },
    {
      name: 'no-feature-into-http',
      comment: 'http/ only adapts features to Fastify: nothing but the entry points imports it (shared helpers live in core/).',
      severity: 'error',
      from: { path: '^engine/src/', pathNot: '^engine/src/(http/|bin/|index\\.ts$)' },
      to: { path: '^engine/src/http/' },
    },
    {
      name: 'no-regime-into-regime',
      comment: 'A tax regime never imports another: what both need lives below them (issuing/, core/).',
      severity: 'error',
      from: { path: REGIME },
      to: { path: REGIME, pathNot: '^engine/src/(?:regimes/)?$1/' },
    },
    {
      name: 'core-imports-no-feature',
      comment: 'core/ is the bottom: platform, db schema types and src-shared only.',
      severity: 'error',
      from: { path: '^engine/src/core/' },
      to: { path: '^engine/src/', pathNot: '^engine/src/(core|platform|db/schema)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^(engine/src|src-shared)/',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    cache: false,
  },
};
