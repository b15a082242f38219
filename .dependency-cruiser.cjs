/**
 * The module boundaries of docs/architecture.md ("Modules and seams"), checked by `npm run check:boundaries`
 * (part of `npm test`). Each rule's `comment` is printed with the offending import: it names the seam to use.
 * Violations that existed when a rule was added are listed in .dependency-cruiser-known-violations.json and
 * tolerated until fixed; a new one fails the check.
 */
// Captures the importing file's module as $1 (empty outside src/modules), so `to` can exempt that module's own files.
const OWN_MODULE_OR_OUTSIDE = '^(?:src/modules/([^/]+)/|(?!src/modules/))';
const COMPOSITION_ROOT = '^src/server/(modules|main|run|seed|cluster)[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'This import closes a circle of imports. Break it by moving the shared piece down a layer (to the kernel, ' +
        'or to the lower module), or, when a lower module must learn what a higher one did, fire a hook declared on ' +
        '`Module` (src/server/module.ts) that the higher module registers for.',
      from: { path: '^(src|plugins|runtime)/' },
      to: { circular: true },
    },
    {
      name: 'module-inner-file',
      severity: 'error',
      comment:
        "Another module's inner file. Import what it offers from its index.ts (export the function or type there if " +
        'it is meant to be used outside); if it must not be, ask for it through a hook or move it to the kernel.',
      from: { path: OWN_MODULE_OR_OUTSIDE, pathNot: '^(plugins|runtime)/' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index[.]ts$', '^src/modules/[^/]+/schema[.]ts$'],
      },
    },
    {
      name: 'module-schema',
      severity: 'error',
      comment:
        "Another module's tables. A module owns its tables: read or write them through a function its index.ts " +
        'exports, or keep a copy of what you need from a hook it fires.',
      from: { path: OWN_MODULE_OR_OUTSIDE, pathNot: '^(plugins|runtime)/' },
      to: { path: '^src/modules/[^/]+/schema[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'kernel-imports-module',
      severity: 'error',
      comment:
        'The kernel (src/kernel, src/db, src/server except the composition root) sits below every module and imports ' +
        'none. Move the type or helper into the kernel, or declare a hook on `Module` (src/server/module.ts) that the ' +
        'module registers in its index.ts. Only the composition root (src/server/modules.ts, main.ts, run.ts, ' +
        'seed.ts, cluster.ts) assembles modules.',
      from: { path: '^src/(kernel|db|server)/', pathNot: COMPOSITION_ROOT },
      to: { path: '^src/modules/' },
    },
    {
      name: 'runtime-imports-src',
      severity: 'error',
      comment:
        'runtime/ is the sandbox worker: it holds no secrets and ships on its own, so it imports nothing from src/. ' +
        'Share shapes through runtime/protocol.ts instead.',
      from: { path: '^runtime/' },
      to: { path: '^src/' },
    },
    {
      name: 'plugin-imports-internals',
      severity: 'error',
      comment:
        "A plugin uses only the package's public surface: src/index.ts, the CLI kit (src/cli/) and the API client " +
        '(src/client/). Move what it needs there (or into the plugin itself).',
      from: { path: '^plugins/' },
      to: { path: '^src/', pathNot: ['^src/index[.]ts$', '^src/cli/', '^src/client/'] },
    },
    {
      name: 'module-imports-cli',
      severity: 'error',
      comment:
        'Modules run inside the service and must not depend on the CLI. Put the command code in src/commands/, ' +
        'src/cli/ or the plugin, and have it call the module through the API or its index.ts.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(commands|cli)/' },
    },
  ],
  options: {
    includeOnly: '^(src|plugins|runtime)/',
    exclude: { path: '(^|/)node_modules/|[.]d[.]ts$' },
    doNotFollow: { path: 'node_modules' },
    moduleSystems: ['es6', 'cjs'],
    // TypeScript 7 has no JavaScript API: scripts/boundaries/register.mjs lets esbuild strip the types instead,
    // keeping type-only imports as dependencies.
    tsPreCompilationDeps: false,
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    skipAnalysisNotInRules: false,
    cache: false,
  },
};
