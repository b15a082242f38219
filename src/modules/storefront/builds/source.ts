import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, gzipSync } from 'node:zlib';
import { extract, pack } from 'tar-stream';
import { fail } from '../../../server/errors.js';

/** What one source upload may hold (spec 02 leaves it open; decisions.md). */
export const SOURCE_LIMITS = { files: 2_000, bytes: 50 * 1024 * 1024, pathChars: 300 };
/** Installed packages and build output never belong to the source; they are rebuilt from it. */
const SKIPPED_ROOTS = new Set(['node_modules', '.git', 'dist']);

const invalid = (reason: string, detail: Record<string, unknown> = {}) => fail(400, 'STOREFRONT_SOURCE_INVALID', { reason, ...detail });

/** A project path as stored: relative, `/`-separated, no `.`/`..` segments, no control characters. */
export function cleanPath(raw: string): string | null {
  const path = raw.replace(/^\.\//, '').replace(/\/+$/, '');
  if (!path || path.length > SOURCE_LIMITS.pathChars || path.startsWith('/') || /[\u0000-\u001f\\]/.test(path)) return null;
  const segments = path.split('/');
  return segments.some((s) => s === '' || s === '.' || s === '..') ? null : path;
}

/**
 * The files of a `.tar.gz` project archive. Links, devices and unsafe paths are refused rather than
 * skipped (a project that needs them would build differently here); `node_modules`, `.git` and `dist`
 * are left out and counted.
 */
export async function readSourceArchive(archive: Uint8Array): Promise<{ files: Map<string, Buffer>; skipped: number }> {
  const files = new Map<string, Buffer>();
  let bytes = 0;
  let skipped = 0;
  const tar = extract();
  let problem: Error | null = null;
  const done = new Promise<void>((ok, ko) => {
    tar.on('entry', (header, stream, next) => {
      // Stopping destroys the archive, and with it this entry's stream: its error is ours, already recorded.
      stream.on('error', () => {});
      const stop = (error: Error) => {
        problem ??= error;
        tar.destroy(problem);
      };
      const path = cleanPath(header.name);
      if (header.type !== 'file' && header.type !== 'directory') return stop(invalid('UNSUPPORTED_ENTRY', { path: header.name, type: header.type }));
      if (header.type === 'file' && path === null) return stop(invalid('UNSAFE_PATH', { path: header.name }));
      const keep = header.type === 'file' && !SKIPPED_ROOTS.has(path!.split('/')[0]);
      if (header.type === 'file' && !keep) skipped++;
      const chunks: Buffer[] = [];
      stream.on('data', (data: unknown) => {
        const chunk = data as Buffer;
        bytes += chunk.length;
        if (bytes > SOURCE_LIMITS.bytes) return stop(invalid('TOO_LARGE', { limitBytes: SOURCE_LIMITS.bytes }));
        if (keep) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (keep) files.set(path!, Buffer.concat(chunks));
        if (files.size > SOURCE_LIMITS.files) return stop(invalid('TOO_MANY_FILES', { limit: SOURCE_LIMITS.files }));
        next();
      });
    });
    tar.on('finish', ok);
    tar.on('close', () => (problem ? ko(problem) : ok()));
    tar.on('error', (error: Error) => ko(problem ?? error));
  });
  const gunzip = createGunzip();
  gunzip.on('error', (error) => {
    problem ??= invalid('NOT_TAR_GZ', { message: error.message });
    tar.destroy(problem);
  });
  Readable.from([archive]).pipe(gunzip).pipe(tar);
  try {
    await done;
  } catch (error) {
    if (error instanceof Error && 'status' in error) throw error;
    throw invalid('NOT_TAR_GZ', { message: (error as Error).message });
  }
  if (!files.has('package.json')) throw invalid('NO_PACKAGE_JSON');
  return { files, skipped };
}

/** A project folder's files (no installed packages, build output or git data), as path → bytes. */
export function projectFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (SKIPPED_ROOTS.has(entry.name) || entry.name === '.svc') continue;
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) files.set(relative(dir, path).split('\\').join('/'), readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

/** The `.tar.gz` a source upload takes (what `svc storefront deploy` sends). */
export async function packProject(files: Map<string, Uint8Array>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => void chunks.push(c as Buffer));
  const done = new Promise<void>((ok) => tar.on('end', () => ok()));
  for (const [name, content] of files) tar.entry({ name, type: 'file', mode: 0o644 }, Buffer.from(content));
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}
