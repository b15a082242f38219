import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { and, asc, count, desc, eq, gt, gte, max } from 'drizzle-orm';
import { getDomain } from 'tldts';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { instant } from '../../server/responses.js';
import type { Services } from '../../server/services.js';
import { packageRoot } from '../../paths.js';
import { stores } from '../stores/schema.js';
import { markStoreMilestone } from '../stores/usage.js';
import { putBlob } from './blobs.js';
import { primaryUrl } from './domains.js';
import { slugChangesRemaining } from './lifecycle.js';
import { builds, deployments, publications, siteCreations, siteFiles, sites, slugHolds, versions, type DeploymentStep, type StoredFile } from './schema.js';

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

/** Spec 02 §2.3: lowercase letters and digits, single inner hyphens, 3 to 30 characters. */
const SLUG_FORM = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const isSlug = (value: string) => value.length >= 3 && value.length <= 30 && SLUG_FORM.test(value);
const SLUG_RULE = '영문 소문자·숫자·하이픈 3~30자, 하이픈으로 시작·끝나거나 연달아 쓸 수 없습니다';
// The length as bounds of its own, not a look-ahead in the pattern: the document states both plainly.
export const slugInput = z.string().min(3, SLUG_RULE).max(30, SLUG_RULE).regex(SLUG_FORM, SLUG_RULE);

/**
 * Slugs no store may take: each site is served at `{slug}.{sitesDomain}`, so these would be the operator's
 * own hosts there (api, auth, the CNAME target, …) or names buyers read as the operator's.
 */
const RESERVED_SLUGS = ['api', 'auth', 'login', 'www', 'admin', 'mail', 'console', 'status', 'cdn', 'static', 'assets', 'app', 'apps', 'docs', 'help', 'support', 'dev'];

/** The reserved slugs of this deployment: the fixed ones, and the first labels of the service's own hosts (the CNAME target's `domains`, …). */
export function reservedSlugs(services: Services): Set<string> {
  const { domainTarget } = services.config.storefront;
  const ownHosts = [domainTarget, services.config.appsHost, new URL(services.config.origin).hostname];
  return new Set([...RESERVED_SLUGS, ...ownHosts.filter((h): h is string => !!h && !isIP(h)).map((h) => h.toLowerCase().split('.')[0])]);
}

export type Site = typeof sites.$inferSelect;
export type Version = typeof versions.$inferSelect;

// ── templates ────────────────────────────────────────────────────────────────

export interface Template {
  templateId: string;
  name: string;
  description: string;
  templateVersion: string | null;
  dir: string;
}

export const templatesDir = join(packageRoot, 'templates', 'storefront');

/** Template projects shipped with svc (`templates/storefront/<id>/`), read once. */
export const templates: Template[] = existsSync(templatesDir)
  ? readdirSync(templatesDir, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(join(templatesDir, d.name, 'package.json'))).map((d) => {
      const manifest = JSON.parse(readFileSync(join(templatesDir, d.name, 'package.json'), 'utf8')) as { description?: string; displayName?: string; sayren?: { templateVersion?: unknown } };
      return {
        templateId: d.name,
        name: manifest.displayName ?? d.name,
        description: manifest.description ?? '',
        templateVersion: manifest.sayren?.templateVersion == null ? null : String(manifest.sayren.templateVersion),
        dir: join(templatesDir, d.name),
      };
    })
  : [];

export const templateSchema = z.object({ templateId: z.string(), name: z.string(), description: z.string(), templateVersion: z.string().nullable() });
export const presentTemplate = (t: Template): z.output<typeof templateSchema> => ({ templateId: t.templateId, name: t.name, description: t.description, templateVersion: t.templateVersion });

// ── sites ────────────────────────────────────────────────────────────────────

/** The store's site: the live one, else a disabled one still in its closing period. */
export async function findSite(db: Db, storeId: string): Promise<Site | undefined> {
  const rows = await db.select().from(sites).where(eq(sites.storeId, storeId)).all();
  return rows.find((s) => s.status !== 'CLOSED') ?? rows[0];
}

export async function requireSite(db: Db, storeId: string): Promise<Site> {
  const site = await findSite(db, storeId);
  if (!site) throw fail(404, 'STOREFRONT_SITE_NOT_FOUND');
  return site;
}

/** A store whose hosting the operator suspended refuses every storefront change. */
export async function assertStoreNotSuspended(db: Db, storeId: string) {
  const store = await db.select({ suspendedAt: stores.suspendedAt, reason: stores.suspensionReason }).from(stores).where(eq(stores.id, storeId)).get();
  if (store?.suspendedAt != null) throw fail(409, 'STORE_SUSPENDED', { reason: store.reason });
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
    lines.push(`  warning        sites under ${parent} share a site with the service (cookies of ${parent}): use a domain of their own, e.g. shops.example.net`);
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
  await db.update(sites).set({ ...change, revision: changed.revision, updatedAt: now }).where(eq(sites.id, site.id)).run();
  await db.update(stores).set({ updatedAt: now }).where(eq(stores.id, site.storeId)).run();
  return changed;
}

export type SlugUnavailable = 'INVALID' | 'RESERVED' | 'TAKEN';

/**
 * A slug is taken while another store's site uses it or another store holds it (old or disabled address);
 * a reserved one is never available.
 */
export async function slugAvailability(services: Services, db: Db, storeId: string, slug: string, now: number): Promise<{ available: boolean; reason: SlugUnavailable | null }> {
  if (!isSlug(slug)) return { available: false, reason: 'INVALID' };
  if (reservedSlugs(services).has(slug)) return { available: false, reason: 'RESERVED' };
  const holder = await db.select({ storeId: sites.storeId, status: sites.status }).from(sites).where(eq(sites.slug, slug)).get();
  const held = await db.select({ storeId: slugHolds.storeId }).from(slugHolds).where(and(eq(slugHolds.slug, slug), gt(slugHolds.heldUntil, now))).all();
  // A closing site keeps its address until deleted, from its own store's next site too.
  return (holder && (holder.storeId !== storeId || holder.status === 'CLOSED')) || held.some((h) => h.storeId !== storeId) ? { available: false, reason: 'TAKEN' } : { available: true, reason: null };
}

/** 409 STOREFRONT_SLUG_TAKEN unless the store may take `slug`; `details.reason` tells a reserved slug from a taken one. */
export async function assertSlugAvailable(services: Services, db: Db, storeId: string, slug: string, now: number) {
  const { available, reason } = await slugAvailability(services, db, storeId, slug, now);
  if (!available) throw fail(409, 'STOREFRONT_SLUG_TAKEN', { slug, reason });
}

/** Creates the site and its deployment (SITE done; UPLOAD and PUBLISH continue in the job runner). */
export async function createSite(services: Services, db: Db, storeId: string, template: Template, slug: string, now: number): Promise<Site> {
  if (!services.config.storefront.hostingOpen) throw fail(403, 'STOREFRONT_HOSTING_DISABLED');
  await assertStoreNotSuspended(db, storeId);
  const existing = await findSite(db, storeId);
  if (existing && existing.status !== 'CLOSED') throw fail(409, 'STOREFRONT_SITE_EXISTS');
  await assertSlugAvailable(services, db, storeId, slug, now);
  const recent = (await db.select({ n: count() }).from(siteCreations).where(and(eq(siteCreations.storeId, storeId), gte(siteCreations.createdAt, now - SITE_CREATE_WINDOW_MS))).get())!.n;
  if (recent >= SITE_CREATE_LIMIT) throw fail(409, 'STOREFRONT_SITE_CREATE_LIMIT', { limit: SITE_CREATE_LIMIT, windowDays: 30 });
  const site: Site = {
    id: newId('site', now), storeId, slug, templateId: template.templateId, visibility: 'COMING_SOON', status: 'ACTIVE', suspensionReason: null, deleteAt: null,
    publishedVersionId: null, servedVersionId: null, provisioningStatus: 'SYNCED', provisioningFailures: 0, nextAttemptAt: null, revision: 1, createdAt: now, updatedAt: now,
  };
  countSiteWrite();
  await db.insert(sites).values(site).run();
  await db.insert(siteCreations).values({ id: newId('sitec', now), storeId, createdAt: now }).run();
  await db.update(stores).set({ updatedAt: now }).where(eq(stores.id, storeId)).run();
  await db.insert(deployments).values({
    id: newId('dep', now), siteId: site.id, storeId, status: 'RUNNING', steps: [{ name: 'SITE', status: 'SUCCEEDED' }, { name: 'UPLOAD', status: 'PENDING' }, { name: 'PUBLISH', status: 'PENDING' }],
    log: [`${isoAt(now)} 사이트 ${slug} 생성 (템플릿 ${template.templateId})`], errorCode: null, buildId: null, nextAttemptAt: now, createdAt: now, updatedAt: now,
  }).run();
  return site;
}

// ── source files ─────────────────────────────────────────────────────────────

/** Replaces the site's source files with `files` (written to the blob store first); answers what changed. */
export async function replaceSourceFiles(services: Services, db: Db, storeId: string, files: Map<string, Buffer>) {
  const stored = storeFiles(services, files);
  const before = await currentFiles(db, storeId);
  await db.delete(siteFiles).where(eq(siteFiles.storeId, storeId)).run();
  for (const [path, file] of Object.entries(stored)) await db.insert(siteFiles).values({ storeId, path, ...file }).run();
  return changedPaths(before, stored);
}

export function storeFiles(services: Services, files: Map<string, Buffer>): Record<string, StoredFile> {
  return Object.fromEntries([...files].map(([path, bytes]) => [path, putBlob(services, bytes)]));
}

export async function currentFiles(db: Db, storeId: string): Promise<Record<string, StoredFile>> {
  return Object.fromEntries((await db.select().from(siteFiles).where(eq(siteFiles.storeId, storeId)).orderBy(asc(siteFiles.path)).all()).map((f) => [f.path, { hash: f.hash, size: f.size }]));
}

export function changedPaths(before: Record<string, StoredFile>, after: Record<string, StoredFile>): { added: string[]; changed: string[]; removed: string[] } {
  const added: string[] = [], changed: string[] = [], removed: string[] = [];
  for (const [path, file] of Object.entries(after)) {
    if (!before[path]) added.push(path);
    else if (before[path].hash !== file.hash) changed.push(path);
  }
  for (const path of Object.keys(before)) if (!after[path]) removed.push(path);
  return { added, changed, removed };
}

// ── builds and versions ──────────────────────────────────────────────────────

export async function queueBuild(db: Db, site: Site, files: Record<string, StoredFile>, publish: boolean, now: number) {
  const build = {
    id: newId('bld', now), storeId: site.storeId, siteId: site.id, status: 'QUEUED' as const, failureStage: null, errorCode: null, logTail: '',
    dependencies: { rejected: [], warnings: [] }, files, versionId: null, publish, advisoriesUnavailableSince: null, nextAttemptAt: now, createdAt: now, startedAt: null, finishedAt: null,
  };
  await db.insert(builds).values(build).run();
  return build;
}

export const nextVersionNumber = async (db: Db, siteId: string) => ((await db.select({ n: max(versions.number) }).from(versions).where(eq(versions.siteId, siteId)).get())?.n ?? 0) + 1;

export const versionSchema = z.object({
  versionId: z.string(),
  number: z.string().describe('v1, v2, …'),
  templateVersion: z.string().nullable(),
  previewable: z.boolean(),
  published: z.boolean(),
  createdAt: instant,
  sizes: z.object({ serverBundle: z.number().int(), static: z.number().int() }),
});

export function presentVersion(v: Version, site: Site): z.output<typeof versionSchema> {
  return {
    versionId: v.id, number: `v${v.number}`, templateVersion: v.templateVersion, previewable: true, published: site.publishedVersionId === v.id,
    createdAt: isoAt(v.createdAt), sizes: { serverBundle: v.server.bundle.size, static: v.staticBytes },
  };
}

export async function requireVersion(db: Db, storeId: string, versionId: string): Promise<Version> {
  const version = await db.select().from(versions).where(eq(versions.id, versionId)).get();
  if (!version || version.storeId !== storeId) throw fail(404, 'STOREFRONT_VERSION_NOT_FOUND', { versionId });
  return version;
}

/**
 * Makes `version` the published one and queues provisioning (visitors get it once SYNCED). The first
 * published version fixes the site's template version when the project did not name one.
 */
export async function publishVersion(db: Db, site: Site, version: Version, via: 'PUBLISH' | 'ROLLBACK' | 'DEPLOYMENT', now: number): Promise<Site> {
  if (site.publishedVersionId === version.id) return site;
  await db.insert(publications).values({ id: newId('pub', now), storeId: site.storeId, siteId: site.id, versionId: version.id, via, publishedAt: now }).run();
  return changeSite(db, site, { publishedVersionId: version.id, provisioningStatus: 'PENDING', provisioningFailures: 0, nextAttemptAt: now }, now);
}

/** Rollback's default target: the version published just before the current one (spec 02 §4.2). */
export async function previousPublished(db: Db, site: Site): Promise<string | null> {
  const history = await db.select({ versionId: publications.versionId }).from(publications).where(eq(publications.siteId, site.id)).orderBy(desc(publications.publishedAt), desc(publications.id)).all();
  return history.find((h) => h.versionId !== site.publishedVersionId)?.versionId ?? null;
}

/** The template version a new version records: its own `sayren.templateVersion`, else the published version's. */
export async function inheritedTemplateVersion(db: Db, site: Site): Promise<string | null> {
  if (!site.publishedVersionId) return templates.find((t) => t.templateId === site.templateId)?.templateVersion ?? null;
  return (await db.select({ v: versions.templateVersion }).from(versions).where(eq(versions.id, site.publishedVersionId)).get())?.v ?? null;
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

// ── presentation ─────────────────────────────────────────────────────────────

export const siteSchema = z.object({
  enabled: z.literal(true),
  siteId: z.string(),
  status: z.enum(['ACTIVE', 'SUSPENDED', 'CLOSED']),
  suspension: z.object({ reason: z.string().nullable() }).nullable(),
  /** Disabled: the closing notice shows until `deleteAt`, when the site, its versions and files are deleted. */
  closing: z.object({ deleteAt: instant }).nullable(),
  /** The site's address: its primary custom domain, else `{slug}.{sitesDomain}`; null in svc serve without a sites domain until a custom domain is connected. */
  url: z.string().nullable(),
  visibility: z.enum(['COMING_SOON', 'PUBLIC']),
  slug: z.string(),
  slugChangesRemaining: z.number().int(),
  templateId: z.string(),
  templateVersion: z.string().nullable(),
  publishedVersionId: z.string().nullable(),
  provisioning: z.object({ status: z.enum(['PENDING', 'SYNCED', 'FAILED']), servedVersionId: z.string().nullable() }),
  createdAt: instant,
  updatedAt: instant,
});
/** Before creation: `enabled` says whether a site can be created now (spec 02 §4.2). */
export const noSiteSchema = z.object({ enabled: z.boolean(), siteId: z.null() });

export async function presentSite(services: Services, db: Db, site: Site): Promise<z.output<typeof siteSchema>> {
  const published = site.publishedVersionId ? await db.select({ v: versions.templateVersion }).from(versions).where(eq(versions.id, site.publishedVersionId)).get() : undefined;
  return {
    enabled: true,
    siteId: site.id,
    status: site.status,
    suspension: site.status === 'SUSPENDED' ? { reason: site.suspensionReason } : null,
    closing: site.status === 'CLOSED' && site.deleteAt !== null ? { deleteAt: isoAt(site.deleteAt) } : null,
    url: await primaryUrl(services, db, site),
    visibility: site.visibility,
    slug: site.slug,
    slugChangesRemaining: await slugChangesRemaining(db, site.storeId, services.clock.now()),
    templateId: site.templateId,
    templateVersion: published?.v ?? null,
    publishedVersionId: site.publishedVersionId,
    provisioning: { status: site.provisioningStatus, servedVersionId: site.servedVersionId },
    createdAt: isoAt(site.createdAt),
    updatedAt: isoAt(site.updatedAt),
  };
}

export const deploymentSchema = z.object({
  status: z.enum(['RUNNING', 'SUCCEEDED', 'FAILED']),
  steps: z.array(z.object({ name: z.enum(['SITE', 'UPLOAD', 'PUBLISH']), status: z.enum(['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED']) })),
  log: z.array(z.string()),
  errorCode: z.string().nullable(),
  buildId: z.string().nullable(),
  updatedAt: instant,
});

export function presentDeployment(d: typeof deployments.$inferSelect): z.output<typeof deploymentSchema> {
  return { status: d.status, steps: d.steps, log: d.log, errorCode: d.errorCode, buildId: d.buildId, updatedAt: isoAt(d.updatedAt) };
}

export const stepsWith = (steps: DeploymentStep[], name: DeploymentStep['name'], status: DeploymentStep['status']) => steps.map((s) => (s.name === name ? { ...s, status } : s));
