// Bundles the CLI after tsc (npm run build): the entry with @oclif/core (dist/bundle/cli.js), every command of
// the core CLI and of each plugin in plugins/ (one module per CLI, exporting COMMANDS for oclif's explicit
// command strategy), and through their lazy imports the whole service, in chunks they share
// (dist/bundle/chunks). A start then reads a few files: resolving the service's ESM graph file by file cost
// `svc dev` most of its start (issue 31). tsc's dist/src stays for the package's API (src/index.ts), the
// worker processes (runtime/worker, the storefront bundle worker) and the benches.
import { build } from 'esbuild';
import { globSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, parse, posix } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const started = performance.now();

/**
 * Kept out of the bundle: native addons (isolated-vm, better-sqlite3, pg's optional pg-native), packages that
 * spawn or locate their own files at run time (esbuild, pnpm, typescript, oxlint, playwright-core, chromium),
 * and heavy ones a rare path imports on first use (acme-client, @pnpm/*).
 */
const external = [
  'better-sqlite3',
  'isolated-vm',
  'pg',
  'pg-native',
  'esbuild',
  'pnpm',
  '@pnpm/*',
  'typescript',
  'oxlint',
  'playwright-core',
  '@sparticuz/chromium',
  'acme-client',
];

/** The command modules of one CLI, by oclif id (the pattern strategy's ids: path segments joined by ':', index dropped). */
function commandsModule(commandsDir) {
  const files = globSync('**/*.ts', { cwd: join(root, commandsDir) })
    .filter((f) => !f.endsWith('.d.ts'))
    .sort();
  const imports = files.map((f, i) => `import * as command${i} from './${posix.join(commandsDir, f)}';`);
  const entries = files.map((f, i) => {
    const { dir, name } = parse(f);
    const id = [...dir.split('/'), name === 'index' ? '' : name].filter(Boolean).join(':');
    return `  ${JSON.stringify(id)}: commandClass(command${i}),`;
  });
  return [
    ...imports,
    // As oclif's pattern strategy picks a command from a file: its default export, else the first export with run().
    "const commandClass = (m) => m.default ?? Object.values(m).find((v) => typeof v === 'function' && typeof v.run === 'function');",
    `export const COMMANDS = {\n${entries.join('\n')}\n};`,
  ].join('\n');
}

const cliCommands = { core: 'src/commands', app: 'plugins/app/commands', storefront: 'plugins/storefront/commands' };
const commandsPlugin = {
  name: 'svc-commands',
  setup(b) {
    b.onResolve({ filter: /^svc-commands:/ }, (args) => ({ path: args.path.slice('svc-commands:'.length), namespace: 'svc-commands' }));
    b.onLoad({ filter: /.*/, namespace: 'svc-commands' }, (args) => ({ contents: commandsModule(cliCommands[args.path]), resolveDir: root, loader: 'js' }));
  },
};

/**
 * node:http, node:https and node:tls through require() rather than as ES modules: Node builds an ES module's
 * view of a built-in by reading every export, and that runs the lazy getters of http (WebSocket and its events
 * load undici) and of tls (rootCertificates parses the CA store) — ~50 ms of a start for values the service
 * never reads. The view below exports the same names, getters left out.
 */
const requiredBuiltins = ['http', 'https', 'tls'];
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    const filter = new RegExp(`^(node:)?(${requiredBuiltins.join('|')})$`);
    b.onResolve({ filter }, (args) =>
      args.namespace === 'builtin-view' ? { path: args.path, external: true } : { path: args.path.replace(/^node:/, ''), namespace: 'builtin-view' },
    );
    b.onLoad({ filter: /.*/, namespace: 'builtin-view' }, async (args) => {
      const builtin = await import(`node:${args.path}`);
      const names = Object.entries(Object.getOwnPropertyDescriptors(builtin.default)).filter(
        ([name, d]) => !d.get && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default',
      );
      const contents = [`const m = require('node:${args.path}');`, 'export default m;', ...names.map(([name]) => `export const ${name} = m.${name};`)].join(
        '\n',
      );
      return { contents, loader: 'js' };
    });
  },
};

/**
 * oclif matches every dependency of package.json against each name in oclif.plugins with minimatch, which
 * builds a matcher per pair — a good part of every start's Config.load (issue 31). A name with no glob
 * syntax matches only itself, so oclif gets a minimatch that answers those by comparison and hands anything
 * else to minimatch.
 */
const plainNameMinimatch = {
  name: 'plain-name-minimatch',
  setup(b) {
    b.onResolve({ filter: /^minimatch$/ }, (args) =>
      args.importer.includes('/node_modules/@oclif/core/') ? { path: 'minimatch', namespace: 'plain-name-minimatch' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'plain-name-minimatch' }, () => ({
      resolveDir: root,
      loader: 'js',
      contents: [
        "import { minimatch as globMatch } from 'minimatch';",
        "export * from 'minimatch';",
        'const plainName = /^[\\w@-][\\w@.-]*(\\/[\\w@-][\\w@.-]*)*$/;',
        'export const minimatch = Object.assign((path, pattern, options) => (plainName.test(pattern) ? path === pattern : globMatch(path, pattern, options)), globMatch);',
      ].join('\n'),
    }));
  },
};

/**
 * oclif asks wsl-utils whether it runs under WSL on every start (Config.load), by a dynamic import of a package
 * that loads child_process, fs/promises and PowerShell helpers: a chunk of its own, ~7% of `svc --help`. The
 * answer is is-wsl's, which wsl-utils re-exports; required here, it is bundled into oclif's chunk. The build fails
 * if oclif's line changes, rather than silently keeping the import.
 */
const wslAnswerInline = {
  name: 'wsl-answer-inline',
  setup(b) {
    b.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const asked = "(await import('wsl-utils')).isWsl";
      if (!source.includes(asked)) throw new Error(`${args.path} no longer has ${asked}: update scripts/bundle.mjs`);
      return { contents: source.replace(asked, "require('is-wsl').default"), loader: 'js' };
    });
  },
};

/**
 * h3 and srvx's Node adapter build on the web's Headers, Request and Response when they load (srvx defines
 * its request, headers and response classes on top of them, h3 two frozen header sets): reading those globals
 * loads undici, Node's fetch — ~6% of `svc dev`'s start (issue 31) for what the first request needs. Here
 * each is made when first used. What srvx exports of its classes (FastResponse, which h3 and hosted sites
 * answer with) becomes a stand-in that constructs the class. The build fails if either module's shape
 * changes, rather than bundling it half changed.
 */
const webGlobalsOnFirstUse = {
  name: 'web-globals-on-first-use',
  setup(b) {
    const edit = (path, source) => (from, to) => {
      if (source.text.split(from).length !== 2) throw new Error(`${path}: expected "${from}" once: update scripts/bundle.mjs`);
      source.text = source.text.replace(from, to);
    };
    b.onLoad({ filter: /[\\/]srvx[\\/]dist[\\/]adapters[\\/]node\.mjs$/ }, async (args) => {
      const source = { text: await readFile(args.path, 'utf8') };
      for (const name of ['NodeRequestHeaders', 'NodeRequest', 'NodeResponse']) {
        const start = `const ${name} = /* @__PURE__ */ (() => {`;
        const at = source.text.indexOf(start);
        const end = source.text.indexOf('\n})();\n', at);
        if (at < 0 || end < 0) throw new Error(`${args.path}: no ${start}: update scripts/bundle.mjs`);
        const body = source.text.slice(at + start.length, end);
        source.text = [
          source.text.slice(0, at),
          `let ${name}$defined;`,
          `const ${name}$class = () => (${name}$defined ??= (() => {${body}\n})());`,
          `function ${name}$export(...args) { return new (${name}$class())(...args); }`,
          `Object.defineProperty(${name}$export, Symbol.hasInstance, { value: (value) => value instanceof ${name}$class() });`,
          source.text.slice(end + '\n})();'.length),
        ].join('\n');
        source.text = source.text.replaceAll(`new ${name}(`, `new (${name}$class())(`);
      }
      const change = edit(args.path, source);
      change(
        '\nfunction prematureCloseError',
        '\nNodeResponse$export.json = (data, init) => NodeResponse$class().json(data, init);\nfunction prematureCloseError',
      );
      change(
        'export { NodeResponse as FastResponse, FastURL, NodeRequest, NodeResponse,',
        'export { NodeResponse$export as FastResponse, FastURL, NodeRequest$export as NodeRequest, NodeResponse$export as NodeResponse,',
      );
      return { contents: source.text, loader: 'js' };
    });
    b.onLoad({ filter: /[\\/]h3[\\/]dist[\\/]response\.mjs$/ }, async (args) => {
      const source = { text: await readFile(args.path, 'utf8') };
      const start = 'var FrozenHeaders = class extends Headers {';
      const last = 'const jsonHeaders = /* @__PURE__ */ new FrozenHeaders({ "content-type": "application/json;charset=UTF-8" });';
      const at = source.text.indexOf(start);
      const end = source.text.indexOf(last);
      if (at < 0 || end < at) throw new Error(`${args.path}: no FrozenHeaders block: update scripts/bundle.mjs`);
      const block = source.text.slice(at, end + last.length);
      const rest = source.text.slice(end + last.length).replaceAll(/\b(emptyHeaders|jsonHeaders)\b/g, 'frozenHeaders().$1');
      source.text = `${source.text.slice(0, at)}let frozenHeadersMade;\nconst frozenHeaders = () => (frozenHeadersMade ??= (() => {\n${block}\nreturn { emptyHeaders, jsonHeaders };\n})());${rest}`;
      return { contents: source.text, loader: 'js' };
    });
  },
};

/**
 * oclif sorts each plugin's commands with localeCompare on every start, and the first localeCompare of a
 * process sets up ICU's collator, ~5% of `svc --help`. For ids of lower-case letters, hyphens and colons (every
 * id here) the collator's order is the code points' (hyphen before colon before letters), so those are
 * compared directly; any other id still goes to localeCompare.
 */
const plainIdOrder = {
  name: 'plain-id-order',
  setup(b) {
    b.onLoad({ filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const sorted = '.sort((a, b) => a.id.localeCompare(b.id))';
      if (source.split(sorted).length !== 2) throw new Error(`${args.path} no longer has ${sorted} once: update scripts/bundle.mjs`);
      const compare = [
        'const plainId = /^[a-z-]+(?::[a-z-]+)*$/;',
        'const compareIds = (a, b) => (plainId.test(a) && plainId.test(b) ? (a < b ? -1 : a > b ? 1 : 0) : a.localeCompare(b));',
      ].join('\n');
      // After the module's "use strict", which must stay its first statement.
      const strict = '"use strict";\n';
      if (!source.startsWith(strict)) throw new Error(`${args.path} no longer starts with ${strict}: update scripts/bundle.mjs`);
      const edited = source.slice(strict.length).replace(sorted, '.sort((a, b) => compareIds(a.id, b.id))');
      return { contents: `${strict}${compare}\n${edited}`, loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: [
    { in: 'src/cli/main.ts', out: 'bundle/cli' },
    { in: 'svc-commands:core', out: 'bundle/commands' },
    // plugins/<name>/dist links to dist/plugins/<name>: each plugin's package.json names ./dist/commands.js.
    { in: 'svc-commands:app', out: 'plugins/app/commands' },
    { in: 'svc-commands:storefront', out: 'plugins/storefront/commands' },
  ],
  outdir: join(root, 'dist'),
  chunkNames: 'bundle/chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  external,
  plugins: [commandsPlugin, builtinsByRequire, plainNameMinimatch, wslAnswerInline, webGlobalsOnFirstUse, plainIdOrder],
  // CommonJS dependencies inside an ES module bundle still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
  write: false,
});

// Others run the built CLI while this builds (tests, a running svc dev that imports a chunk on first use): every
// file is replaced by a rename, chunks (named by content hash) before the entries that import them, and chunks
// of earlier builds are kept a while for processes started from those.
const chunksDir = join(root, 'dist', 'bundle', 'chunks');
const written = new Set();
const entries = [];
for (const file of result.outputFiles) {
  if (file.path.startsWith(chunksDir)) writeAtomically(file);
  else entries.push(file);
  written.add(file.path);
}
for (const file of entries) writeAtomically(file);
const KEEP_EARLIER_CHUNKS_MS = 30 * 60_000;
for (const name of readdirSync(chunksDir)) {
  const path = join(chunksDir, name);
  if (!written.has(path) && Date.now() - statSync(path).mtimeMs > KEEP_EARLIER_CHUNKS_MS) rmSync(path, { force: true });
}

function writeAtomically(file) {
  mkdirSync(dirname(file.path), { recursive: true });
  const temporary = `${file.path}.${process.pid}.tmp`;
  writeFileSync(temporary, file.contents);
  renameSync(temporary, file.path);
}
console.log(`dist/bundle: the CLI and the service bundled in ${Math.round(performance.now() - started)} ms`);
