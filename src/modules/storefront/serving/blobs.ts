import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Services } from '../../../server/services.js';
import type { StoredFile } from '../schema.js';

/**
 * Site sources and build artifacts, content-addressed under the data dir (`storefront/blobs/ab/cdef…`):
 * a file shared by many versions (or stores) is kept once, and a hash names its content for good, so
 * readers cache by hash without ever revalidating.
 */
const blobDir = (services: Services) => join(services.config.dataDir, 'storefront', 'blobs');
const blobPath = (services: Services, hash: string) => join(blobDir(services), hash.slice(0, 2), hash.slice(2));

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

export function putBlob(services: Services, bytes: Uint8Array): StoredFile {
  const hash = sha256(bytes);
  const path = blobPath(services, hash);
  if (!existsSync(path)) {
    mkdirSync(join(blobDir(services), hash.slice(0, 2)), { recursive: true });
    // Written aside and renamed: a reader never sees half a file, and concurrent writers of one hash agree.
    const partial = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(partial, bytes);
    renameSync(partial, path);
  }
  return { hash, size: bytes.byteLength };
}

export function readBlob(services: Services, hash: string): Buffer {
  return readFileSync(blobPath(services, hash));
}

const MAX_CACHED_BYTES = 64 * 1024 * 1024;

/** Blobs served to visitors, kept in memory (least recently used out first): no file read per request. */
export class BlobCache {
  private entries = new Map<string, Buffer>();
  private bytes = 0;
  constructor(private readonly services: Services) {}

  get(hash: string): Buffer {
    const hit = this.entries.get(hash);
    if (hit) {
      this.entries.delete(hash);
      this.entries.set(hash, hit);
      return hit;
    }
    const bytes = readBlob(this.services, hash);
    if (bytes.length <= MAX_CACHED_BYTES / 4) {
      this.entries.set(hash, bytes);
      this.bytes += bytes.length;
      for (const [key, old] of this.entries) {
        if (this.bytes <= MAX_CACHED_BYTES) break;
        this.entries.delete(key);
        this.bytes -= old.length;
      }
    }
    return bytes;
  }
}
