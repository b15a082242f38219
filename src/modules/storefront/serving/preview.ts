import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { H3Event } from 'h3';
import { transaction } from '../../../db/client.js';
import { pageCookie } from '../../../server/html.js';
import type { Services } from '../../../server/services.js';
import { connectedOrigins } from '../domains/domains.js';
import { previewLinks } from '../schema.js';
import { findSite, siteUrl, type Site } from '../sites/sites.js';
import { sha256 } from './blobs.js';
import { page } from './pages.js';

export const PREVIEW_TRUST_MS = 12 * 3_600_000;

const PREVIEW_COOKIE = 'svc_preview';
const previewSignature = (services: Services, value: string) =>
  createHmac('sha256', services.keys.formKey).update(`storefront-preview\n${value}`).digest('base64url');

/** The preview trust cookie among a request's cookies, as `svc_preview=…` to pass on, or null. */
export const previewCookieOf = (cookieHeader: string | null): string | null => /(?:^|;\s*)(svc_preview=[^;]+)/.exec(cookieHeader ?? '')?.[1] ?? null;

/** The preview trust of this browser for `site`: the version it may see, or null. */
export const previewVersion = (services: Services, event: H3Event, site: Site): string | null =>
  trustedVersion(services, event.req.headers.get('cookie'), site);

/**
 * Whether a buyer API request comes from the seller's trusted preview browser of the store's site: there
 * checkout still pays in the sandbox once the site is public (PAYMENT_NOT_LIVE is for visitors).
 */
export async function isPreviewBrowser(services: Services, cookieHeader: string | null, storeId: string): Promise<boolean> {
  if (!previewCookieOf(cookieHeader)) return false;
  const site = await findSite(services.db, storeId);
  return site !== undefined && trustedVersion(services, cookieHeader, site) !== null;
}

function trustedVersion(services: Services, cookieHeader: string | null, site: Pick<Site, 'id'>): string | null {
  const raw = previewCookieOf(cookieHeader)?.slice(`${PREVIEW_COOKIE}=`.length);
  if (!raw) return null;
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return null;
  }
  const [siteId, versionId, expires, signature] = value.split('.');
  if (siteId !== site.id || !versionId || !signature) return null;
  const expected = Buffer.from(previewSignature(services, `${siteId}.${versionId}.${expires}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || Number(expires) < services.clock.now()) return null;
  return versionId;
}

/** The trust value for `site`: `{siteId}.{versionId}.{expires}.{signature}`, URI-encoded as the cookie holds it. */
function trustValue(services: Services, siteId: string, versionId: string, expires: number): string {
  const value = `${siteId}.${versionId}.${expires}`;
  return encodeURIComponent(`${value}.${previewSignature(services, value)}`);
}

/**
 * The preview trust an editing environment passes on with its buyer API requests: the environment is the
 * seller's (started by them, served on the service's loopback), so its checkout pays in the sandbox like a preview.
 * Minted per request, never given to a browser.
 */
export async function editingTrustCookie(services: Services, storeId: string): Promise<string | null> {
  const site = await findSite(services.db, storeId);
  return site ? `${PREVIEW_COOKIE}=${trustValue(services, site.id, 'editing', services.clock.now() + PREVIEW_TRUST_MS)}` : null;
}

/**
 * Opens a one-time preview link: marks it used and trusts this browser for 12 hours. The cookie is the
 * platform's on the site's own origin: for its whole path, so the buyer API there (`/storefront/v1/`)
 * knows the seller's browser too; HttpOnly (the site's scripts never read it; its server code never gets
 * cookies — preview renders pass only this one on to the buyer API), SameSite=Lax and, over https, Secure.
 */
export async function openPreview(services: Services, event: H3Event, site: Site, token: string, base: string): Promise<Response> {
  const now = services.clock.now();
  const link = await transaction(services.db, async () => {
    const row = await services.db
      .select()
      .from(previewLinks)
      .where(
        and(eq(previewLinks.tokenHash, sha256(token)), eq(previewLinks.storeId, site.storeId), isNull(previewLinks.usedAt), gt(previewLinks.expiresAt, now)),
      )
      .get();
    if (!row) return null;
    await services.db.update(previewLinks).set({ usedAt: now }).where(eq(previewLinks.id, row.id)).run();
    return row;
  });
  if (!link) return page(410, '미리보기 링크가 만료되었습니다', '미리보기 링크는 한 번, 만든 뒤 5분 안에만 열 수 있습니다. 새 링크를 만들어 주세요.');
  const expires = now + PREVIEW_TRUST_MS;
  // Lax, not Strict: the pay page on the service's origin sends the buyer back here, a cross-site navigation.
  const cookie = pageCookie(event, base, {
    name: PREVIEW_COOKIE,
    value: trustValue(services, site.id, link.versionId, expires),
    path: '/',
    maxAgeSeconds: PREVIEW_TRUST_MS / 1000,
    sameSite: 'Lax',
  });
  return new Response(null, { status: 303, headers: { location: base, 'set-cookie': cookie, 'cache-control': 'no-store' } });
}

/** Preview pages live under `{site origin}/_preview/`: checkout return addresses there are refused with live payment. */
export const PREVIEW_SEGMENT = '_preview/';

/** Whether `url` is a preview page of the store's site (`/_preview/…` of its own origin or of a connected domain), for the checkout's return-address rule. */
export async function isPreviewAddress(services: Services, site: Pick<Site, 'slug' | 'storeId'>, url: URL): Promise<boolean> {
  if (!url.pathname.startsWith(`/${PREVIEW_SEGMENT}`)) return false;
  const own = siteUrl(services, site.slug);
  return (own !== null && new URL(own).origin === url.origin) || (await connectedOrigins(services.db, site.storeId)).includes(url.origin);
}
