import { transaction } from '../../../db/client.js';
import { newId } from '../../../db/ids.js';
import type { Services } from '../../../server/services.js';
import { readBlob } from '../serving/blobs.js';
import { versions, type StoredFile, type VersionAsset } from '../schema.js';
import { findSite } from '../sites/sites.js';
import { inheritedTemplateVersion, nextVersionNumber, publishVersion } from '../sites/versions.js';
import type { Build } from './build-failure.js';

/** The version a successful build makes (published at once for a deployment's first build). */
export async function storeVersion(
  services: Services,
  build: Build,
  server: { bundle: StoredFile; map: StoredFile | null },
  assets: Record<string, VersionAsset>,
  clientEntries: Record<string, string>,
  staticBytes: number,
): Promise<string> {
  // The uploaded manifest, not the work folder's: seller processes have had that folder since.
  const manifest = JSON.parse(
    readBlob(services, build.files['package.json'].hash)
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
  ) as { sayren?: { templateVersion?: unknown } };
  return transaction(services.db, async () => {
    const site = (await findSite(services.db, build.storeId))!;
    const now = services.clock.now();
    const own = manifest.sayren?.templateVersion;
    const version = {
      id: newId('ver', now),
      storeId: build.storeId,
      siteId: build.siteId,
      number: await nextVersionNumber(services.db, build.siteId),
      templateVersion: own == null ? await inheritedTemplateVersion(services.db, site) : String(own),
      server,
      assets,
      clientEntries,
      staticBytes,
      buildId: build.id,
      createdAt: now,
    };
    await services.db.insert(versions).values(version).run();
    if (build.publish) await publishVersion(services.db, site, version, 'DEPLOYMENT', now);
    return version.id;
  });
}
