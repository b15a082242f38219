import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client.js';
import type { Services } from '../../../server/services.js';
import { siteFiles, type StoredFile } from '../schema.js';
import { putBlob } from '../serving/blobs.js';

/** The site's source files: the project a build, a check or the editing environment starts from. */

/** Replaces the site's source files with `files` (written to the blob store first); answers what changed. */
export async function replaceSourceFiles(services: Services, db: Db, storeId: string, files: Map<string, Buffer>) {
  const stored = storeFiles(services, files);
  const before = await currentFiles(db, storeId);
  await db.delete(siteFiles).where(eq(siteFiles.storeId, storeId)).run();
  for (const [path, file] of Object.entries(stored))
    await db
      .insert(siteFiles)
      .values({ storeId, path, ...file })
      .run();
  return changedPaths(before, stored);
}

export function storeFiles(services: Services, files: Map<string, Buffer>): Record<string, StoredFile> {
  return Object.fromEntries([...files].map(([path, bytes]) => [path, putBlob(services, bytes)]));
}

export async function currentFiles(db: Db, storeId: string): Promise<Record<string, StoredFile>> {
  return Object.fromEntries(
    (await db.select().from(siteFiles).where(eq(siteFiles.storeId, storeId)).orderBy(asc(siteFiles.path)).all()).map((f) => [
      f.path,
      { hash: f.hash, size: f.size },
    ]),
  );
}

export function changedPaths(before: Record<string, StoredFile>, after: Record<string, StoredFile>): { added: string[]; changed: string[]; removed: string[] } {
  const added: string[] = [],
    changed: string[] = [],
    removed: string[] = [];
  for (const [path, file] of Object.entries(after)) {
    if (!before[path]) added.push(path);
    else if (before[path].hash !== file.hash) changed.push(path);
  }
  for (const path of Object.keys(before)) if (!after[path]) removed.push(path);
  return { added, changed, removed };
}
