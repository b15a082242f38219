import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, parse, relative } from 'node:path';
import type { Manifest } from '../../kernel/app-manifest.js';
import { ProjectError, readProject, type AppProject } from './project.js';

/**
 * `svc app build`: the app's functions as one script for the runtime (runtime/README.md): esbuild bundles a
 * generated entry into an IIFE that defines the global `__app`, each function under its group
 * (`__app.tools[name]`, `__app.notifications[name]`, `__app.schedules[name]`, `__app.events[EVENT]`,
 * `__app.routes['GET /path/:id']`), with a source map so runtime errors name the author's files and lines.
 *
 * Source layout: `src/tools/<name>.ts`, `src/notifications/<name>.ts`, `src/schedules/<name>.ts`,
 * `src/events/<EVENT>.ts` (optional lifecycle notices), each default-exporting `async (input, context) => …`;
 * and `src/routes.ts` default-exporting an object keyed by the `http.public` entries.
 */

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];
const OUT_DIR = 'dist';
const BUNDLE_FILE = 'app.js';
const BUILD_INFO_FILE = 'build.json';

type Group = 'tools' | 'notifications' | 'schedules' | 'events';
const GROUPS: Group[] = ['tools', 'notifications', 'schedules', 'events'];

export interface BuildOutput {
  project: AppProject;
  code: string;
  map: string;
  /** `tools/NAME`, `routes/GET /x`, …: what the bundle defines (uploaded with it). */
  functions: string[];
  /** The HTML of `ui.adminPage`, when declared. */
  adminPage?: string;
  bytes: number;
  durationMs: number;
  warnings: string[];
}

/** Source files of a group folder, by function name. */
function sources(dir: string, group: string): Map<string, string> {
  const folder = join(dir, 'src', group);
  const found = new Map<string, string>();
  if (!existsSync(folder)) return found;
  for (const file of readdirSync(folder)) {
    const { name, ext } = parse(file);
    if (EXTENSIONS.includes(ext) && !file.endsWith('.d.ts') && !file.endsWith('.test.ts')) found.set(name, join(folder, file));
  }
  return found;
}

const routesFile = (dir: string) => EXTENSIONS.map((e) => join(dir, 'src', `routes${e}`)).find(existsSync);

/** Declared names of each group; events are not declared (lifecycle notices any app may handle). */
function declared(manifest: Manifest): Record<Exclude<Group, 'events'>, string[]> {
  return {
    tools: Object.keys(manifest.mcp?.tools ?? {}),
    notifications: Object.keys(manifest.flow?.notifications ?? {}),
    schedules: Object.keys(manifest.schedules ?? {}),
  };
}

export async function buildApp(dir: string): Promise<BuildOutput> {
  const started = performance.now();
  const project = readProject(dir);
  const { manifest } = project;
  const warnings = [...project.warnings];
  if (manifest.runtime === 'external')
    throw new ProjectError('BUILD_FAILED', 'runtime "external" apps run on external.url: there is nothing to build; svc app deploy uploads the manifest');

  const names = declared(manifest);
  const found = Object.fromEntries(GROUPS.map((g) => [g, sources(dir, g)])) as Record<Group, Map<string, string>>;
  const routes = routesFile(dir);
  const missing = [
    ...(['tools', 'notifications', 'schedules'] as const).flatMap((g) =>
      names[g]
        .filter((n) => !found[g].has(n))
        .map((n) => ({
          field: `${g === 'tools' ? 'mcp.tools' : g === 'notifications' ? 'flow.notifications' : 'schedules'}.${n}`,
          code: 'HANDLER_MISSING',
          message: `no function: create src/${g}/${n}.ts`,
        })),
    ),
    ...((manifest.http?.public?.length ?? 0) > 0 && !routes
      ? [{ field: 'http.public', code: 'HANDLER_MISSING', message: 'no function: create src/routes.ts exporting a handler per entry' }]
      : []),
  ];
  const adminPage = manifest.ui?.adminPage ? join(dir, manifest.ui.adminPage) : null;
  if (adminPage && !existsSync(adminPage))
    missing.push({ field: 'ui.adminPage', code: 'HANDLER_MISSING', message: `no file: create ${manifest.ui!.adminPage}` });
  if (missing.length) throw new ProjectError('HANDLER_MISSING', `${missing.length} declared function(s) have no source`, missing);
  for (const g of ['tools', 'notifications', 'schedules'] as const) {
    for (const n of found[g].keys()) if (!names[g].includes(n)) warnings.push(`src/${g}/${n} is not declared in the manifest and is left out`);
  }

  const imports: string[] = [];
  const groups: string[] = [];
  const functions: string[] = [];
  let i = 0;
  for (const g of GROUPS) {
    const members = g === 'events' ? [...found.events.keys()] : names[g];
    const entries = members.map((n) => {
      const id = `f${i++}`;
      imports.push(`import ${id} from ${JSON.stringify(`./${relative(dir, found[g].get(n)!).split('\\').join('/')}`)};`);
      functions.push(`${g}/${n}`);
      return `${JSON.stringify(n)}: ${id}`;
    });
    groups.push(`export const ${g} = { ${entries.join(', ')} };`);
  }
  if (routes) {
    imports.push(`import routeTable from ${JSON.stringify(`./${relative(dir, routes).split('\\').join('/')}`)};`);
    groups.push('export const routes = routeTable;');
    functions.push(...(manifest.http?.public ?? []).map((r) => `routes/${r}`));
  } else groups.push('export const routes = {};');

  const { build } = await import('esbuild');
  const outfile = join(dir, OUT_DIR, BUNDLE_FILE);
  let result;
  try {
    result = await build({
      stdin: { contents: [...imports, ...groups].join('\n'), resolveDir: dir, sourcefile: 'svc-app-entry.js', loader: 'js' },
      bundle: true,
      // The sandbox has no Node APIs and no module loader: one self-contained script defining `__app`.
      platform: 'neutral',
      mainFields: ['module', 'main'],
      format: 'iife',
      globalName: '__app',
      target: 'es2023',
      sourcemap: 'external',
      sourcesContent: true,
      outfile,
      write: false,
      logLevel: 'silent',
    });
  } catch (error) {
    const errors = (error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors ?? [];
    throw new ProjectError(
      'BUILD_FAILED',
      `esbuild failed: ${errors.length || 1} error(s)`,
      errors.map((e) => ({
        field: e.location ? `${e.location.file}:${e.location.line}:${e.location.column}` : '',
        code: 'BUILD_ERROR',
        message: e.text,
      })),
    );
  }
  for (const w of result.warnings) warnings.push(w.location ? `${w.location.file}:${w.location.line}: ${w.text}` : w.text);
  const code = result.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((f) => f.path.endsWith('.map'))!.text;

  mkdirSync(join(dir, OUT_DIR), { recursive: true });
  writeFileSync(outfile, code);
  writeFileSync(`${outfile}.map`, map);
  writeFileSync(join(dir, OUT_DIR, BUILD_INFO_FILE), `${JSON.stringify({ handle: manifest.handle, functions, builtAt: new Date().toISOString() }, null, 2)}\n`);
  return {
    project,
    code,
    map,
    functions,
    warnings,
    adminPage: adminPage ? readFileSync(adminPage, 'utf8') : undefined,
    bytes: Buffer.byteLength(code),
    durationMs: Math.round(performance.now() - started),
  };
}
