import { lstatSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';
import type { Plugin } from 'esbuild';

/**
 * Keeps a site build to its project: every import esbuild resolves — `import`, `require`, dynamic imports,
 * CSS `@import` and `url()`, entries, and any `with { type }` — must really lie inside the project folder
 * (its own files and its installed node_modules, symlinks followed), and what is read is capped per file
 * and per build. Loaded by the bundle worker only (bundle-worker.ts): it imports nothing of the service.
 */

export interface ReadLimits {
  /** The largest file one import may load. */
  fileBytes: number;
  /** Everything the build loads together. */
  totalBytes: number;
}

export const READ_LIMITS: ReadLimits = { fileBytes: 8 * 1024 * 1024, totalBytes: 256 * 1024 * 1024 };

/** Marks the plugin's own nested resolve, which must reach esbuild's resolver rather than come back here. */
const NESTED = Symbol.for('svc.confine.nested');

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** Where `path` really is, or null when it cannot be followed (dangling link, no permission). */
function realPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** One plugin per esbuild run: the read budget counts that run's loads. */
export function confinePlugin(projectDir: string, limits: ReadLimits = READ_LIMITS): Plugin {
  const root = realpathSync(projectDir);
  let total = 0;
  return {
    name: 'svc-confine',
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.[NESTED]) return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          namespace: args.namespace,
          with: args.with,
          pluginData: { [NESTED]: true },
        });
        if (resolved.errors.length) return { errors: resolved.errors };
        // Left to the browser (a URL in CSS, a data: URL) or not a file: nothing is read from disk.
        const { path, external, sideEffects, namespace, suffix, warnings } = resolved;
        if (external || namespace !== 'file' || !path) return { path, external, sideEffects, namespace, suffix, warnings };
        const real = realPath(path);
        if (real === null || !inside(root, real)) {
          return {
            errors: [{ text: `프로젝트 밖의 파일은 가져올 수 없습니다: "${args.path}" (프로젝트 폴더와 설치된 node_modules 안의 파일만 쓸 수 있습니다)` }],
          };
        }
        return { path: real, sideEffects, namespace, suffix, warnings };
      });
      build.onLoad({ filter: /.*/, namespace: 'file' }, (args) => {
        const real = realPath(args.path);
        if (real === null || !inside(root, real)) return { errors: [{ text: `프로젝트 밖의 파일은 읽을 수 없습니다: ${args.path}` }] };
        // lstat of the real path: a regular file, not a device, FIFO or socket that could be read without end.
        const stat = lstatSync(real);
        if (!stat.isFile()) return { errors: [{ text: `일반 파일이 아니어서 읽을 수 없습니다: ${relative(root, real)}` }] };
        if (stat.size > limits.fileBytes)
          return { errors: [{ text: `파일이 ${limits.fileBytes} bytes를 넘어 읽을 수 없습니다: ${relative(root, real)} (${stat.size} bytes)` }] };
        total += stat.size;
        if (total > limits.totalBytes) return { errors: [{ text: `빌드가 읽는 파일이 모두 ${limits.totalBytes} bytes를 넘습니다` }] };
        return undefined;
      });
    },
  };
}
