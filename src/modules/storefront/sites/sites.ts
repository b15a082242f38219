import { and, count, eq, gte } from 'drizzle-orm';
import { getDomain } from 'tldts';
import type { Db } from '../../../db/client.js';
import { isoAt } from '../../../db/clock.js';
import { newId } from '../../../db/ids.js';
import { fail } from '../../../server/errors.js';
import { defineMessages } from '../../../server/messages.js';
import type { Services } from '../../../server/services.js';
import { findStore, markStoreMilestone, touchStore } from '../../stores/index.js';
import { deployments, siteCreations, sites } from '../schema.js';
import { assertSlugAvailable } from './slugs.js';
import type { Template } from './templates.js';

defineMessages({
  STOREFRONT_HOSTING_DISABLED: '아직 스토어프런트 호스팅을 만들 수 없습니다.',
  STOREFRONT_SITE_NOT_FOUND: '스토어프런트 사이트가 없습니다.',
  STOREFRONT_NO_ADDRESS: '사이트 주소가 아직 없습니다. 이 서비스는 사용자 도메인으로만 사이트를 보여 줍니다: 도메인을 연결하세요.',
  STOREFRONT_SITE_EXISTS: '스토어마다 사이트는 하나입니다.',
  STOREFRONT_SLUG_TAKEN: '다른 스토어가 쓰고 있거나 보류 중인 주소, 또는 서비스가 예약한 주소입니다.',
  STOREFRONT_SITE_CREATE_LIMIT: '사이트는 30일에 3번까지 만들 수 있습니다.',
  STOREFRONT_SITE_CHANGED: '사이트가 그사이 바뀌었습니다. 다시 읽고 시도하세요.',
  STOREFRONT_NO_ROLLBACK_TARGET: '되돌릴 이전 게시 버전이 없습니다.',
  STOREFRONT_NOT_READY: '판매 중인 상품(샘플 제외)이 하나 이상 있어야 공개할 수 있습니다.',
  TEMPLATE_CHANGE_NOT_SUPPORTED: '템플릿 변경은 더 이상 지원하지 않습니다.',
  STOREFRONT_SITE_NOT_ACTIVE: '정지된 사이트는 바꿀 수 없습니다.',
  STOREFRONT_VERSION_NOT_FOUND: '사이트 버전을 찾을 수 없습니다.',
  STOREFRONT_BUILD_NOT_FOUND: '빌드를 찾을 수 없습니다.',
  STOREFRONT_FILE_NOT_FOUND: '사이트 파일을 찾을 수 없습니다.',
  STOREFRONT_SOURCE_INVALID: '올릴 수 없는 소스 묶음입니다.',
  STOREFRONT_DEPLOYMENT_NOT_RETRYABLE: '실패한 배포만 다시 시도할 수 있습니다.',
  TEMPLATE_NOT_FOUND: '템플릿을 찾을 수 없습니다.',
  STORE_SUSPENDED: '운영 정책에 따라 정지된 상점입니다.',
});

export const SITE_CREATE_LIMIT = 3;
export const SITE_CREATE_WINDOW_MS = 30 * 86_400_000;

export type Site = typeof sites.$inferSelect;

/** The store's site: the live one, else a disabled one still in its closing period. */
export async function findSite(db: Db, storeId: string): Promise<Site | undefined> {
  const rows = await db.select().from(sites).where(eq(sites.storeId, storeId)).all();
  return rows.find((s) => s.status !== 'CLOSED') ?? rows[0];
}

/** The hosted storefront's address once the store has a site (the store document's `storefrontUrl`). */
export async function storefrontUrlOf(services: Services, storeId: string): Promise<string | null> {
  const site = await findSite(services.db, storeId);
  return site ? siteUrl(services, site.slug) : null;
}

export async function requireSite(db: Db, storeId: string): Promise<Site> {
  const site = await findSite(db, storeId);
  if (!site) throw fail(404, 'STOREFRONT_SITE_NOT_FOUND');
  return site;
}

/** A store whose hosting the operator suspended refuses every storefront change. */
export async function assertStoreNotSuspended(db: Db, storeId: string) {
  const store = await findStore(db, storeId);
  if (store?.suspendedAt != null) throw fail(409, 'STORE_SUSPENDED', { reason: store.suspensionReason });
}

/** A site the seller may change: suspended and closed sites refuse every change (spec 02 §3). */
export async function requireActiveSite(db: Db, storeId: string): Promise<Site> {
  await assertStoreNotSuspended(db, storeId);
  const site = await requireSite(db, storeId);
  if (site.status !== 'ACTIVE') throw fail(409, 'STOREFRONT_SITE_NOT_ACTIVE', { status: site.status, reason: site.suspensionReason });
  return site;
}

const serviceOrigins = new WeakMap<Services, URL>();

/**
 * The site's own address, `{slug}.{sitesDomain}` with the service's scheme and port
 * (`http://{slug}.localhost:8787/` in svc dev); null in svc serve without a sites domain, where a site has
 * only its connected custom domains. Never a path on the service's own origin.
 */
export function siteUrl(services: Services, slug: string): string | null {
  const { sitesDomain } = services.config.storefront;
  if (!sitesDomain) return null;
  // Asked on every request to a site's host: the service's origin is parsed once.
  let origin = serviceOrigins.get(services);
  if (!origin) serviceOrigins.set(services, (origin = new URL(services.config.origin)));
  return `${origin.protocol}//${slug}.${sitesDomain}${origin.port ? `:${origin.port}` : ''}/`;
}

/**
 * The start banner's line on where sites are served. A sites domain under the service's own registrable
 * domain gets a warning too: its sites would be same-site with the service and could set cookies for the
 * shared parent domain, so a domain of its own (or one on the public suffix list) is the safe choice.
 */
export function sitesLine(services: Services): string[] {
  const address = siteUrl(services, '{slug}');
  if (!address) return ['  sites          connected custom domains only (set SVC_SITES_DOMAIN for {slug}.{domain} addresses)'];
  const lines = [`  sites          ${address} and connected custom domains, each an origin of its own`];
  const parent = getDomain(new URL(services.config.origin).hostname);
  if (parent && getDomain(`x.${services.config.storefront.sitesDomain}`, { allowPrivateDomains: true }) === parent) {
    lines.push(
      `  warning        sites under ${parent} share a site with the service (cookies of ${parent}): use a domain of their own, e.g. shops.example.net`,
    );
  }
  return lines;
}

let siteWrites = 0;
/**
 * Site rows are written only by changeSite, createSite and the closing job, and each counts its write:
 * serving on SQLite — where this process is the file's only writer — trusts what it cached while the
 * count stands still, with no read per request. A write rolled back costs only a re-read.
 */
export const siteWriteCount = () => siteWrites;
export const countSiteWrite = () => void siteWrites++;

/** Every change of a site grows its revision (serving caches compare it) and touches the store, whose document shows the site. */
export async function changeSite(db: Db, site: Site, change: Partial<Site>, now: number): Promise<Site> {
  countSiteWrite();
  const changed = { ...site, ...change, revision: site.revision + 1, updatedAt: now };
  await db
    .update(sites)
    .set({ ...change, revision: changed.revision, updatedAt: now })
    .where(eq(sites.id, site.id))
    .run();
  await touchStore(db, site.storeId, now);
  return changed;
}

/** Creates the site and its deployment (SITE done; UPLOAD and PUBLISH continue in the job runner). */
export async function createSite(services: Services, db: Db, storeId: string, template: Template, slug: string, now: number): Promise<Site> {
  if (!services.config.storefront.hostingOpen) throw fail(403, 'STOREFRONT_HOSTING_DISABLED');
  await assertStoreNotSuspended(db, storeId);
  const existing = await findSite(db, storeId);
  if (existing && existing.status !== 'CLOSED') throw fail(409, 'STOREFRONT_SITE_EXISTS');
  await assertSlugAvailable(services, db, storeId, slug, now);
  const recent = (await db
    .select({ n: count() })
    .from(siteCreations)
    .where(and(eq(siteCreations.storeId, storeId), gte(siteCreations.createdAt, now - SITE_CREATE_WINDOW_MS)))
    .get())!.n;
  if (recent >= SITE_CREATE_LIMIT) throw fail(409, 'STOREFRONT_SITE_CREATE_LIMIT', { limit: SITE_CREATE_LIMIT, windowDays: 30 });
  const site: Site = {
    id: newId('site', now),
    storeId,
    slug,
    templateId: template.templateId,
    visibility: 'COMING_SOON',
    status: 'ACTIVE',
    suspensionReason: null,
    deleteAt: null,
    publishedVersionId: null,
    servedVersionId: null,
    provisioningStatus: 'SYNCED',
    provisioningFailures: 0,
    nextAttemptAt: null,
    revision: 1,
    createdAt: now,
    updatedAt: now,
  };
  countSiteWrite();
  await db.insert(sites).values(site).run();
  await db
    .insert(siteCreations)
    .values({ id: newId('sitec', now), storeId, createdAt: now })
    .run();
  await touchStore(db, storeId, now);
  await db
    .insert(deployments)
    .values({
      id: newId('dep', now),
      siteId: site.id,
      storeId,
      status: 'RUNNING',
      steps: [
        { name: 'SITE', status: 'SUCCEEDED' },
        { name: 'UPLOAD', status: 'PENDING' },
        { name: 'PUBLISH', status: 'PENDING' },
      ],
      log: [`${isoAt(now)} 사이트 ${slug} 생성 (템플릿 ${template.templateId})`],
      errorCode: null,
      buildId: null,
      nextAttemptAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .run();
  return site;
}

// ── visibility ───────────────────────────────────────────────────────────────

/** Going public needs an on-sale product that is not a sample; it records the store's first public state for good. */
export async function setVisibility(db: Db, site: Site, visibility: Site['visibility'], hasSellableProduct: boolean, now: number): Promise<Site> {
  if (site.visibility === visibility) return site;
  if (visibility === 'PUBLIC' && !hasSellableProduct) throw fail(409, 'STOREFRONT_NOT_READY');
  const changed = await changeSite(db, site, { visibility }, now);
  if (visibility === 'PUBLIC') await markStoreMilestone(db, site.storeId, now, 'everPublicAt');
  return changed;
}

/** The storefront is public right now: sandbox-only checkout then stops (PAYMENT_NOT_LIVE, spec 01 §5.5). */
export async function storefrontIsPublic(db: Db, storeId: string): Promise<boolean> {
  const site = await findSite(db, storeId);
  return site?.status !== 'CLOSED' && site?.visibility === 'PUBLIC';
}
