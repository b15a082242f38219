import { eq } from 'drizzle-orm';
import type { H3 } from 'h3';
import { z } from 'zod';
import { transaction } from '../../../db/client.js';
import { devRoute, operatorRoute } from '../../../server/dev.js';
import { fail } from '../../../server/errors.js';
import type { Services } from '../../../server/services.js';
import { parseWith } from '../../../server/validation.js';
import { setStoreSuspension } from '../../stores/index.js';
import { sites } from '../schema.js';
import { changeSite } from './sites.js';

/**
 * The operator's suspension of a site or a store's hosting (spec 02 §3): the operator API of a deployment
 * (`/_operator/v1/storefront/…`, `svc operator sites|stores suspend|resume`) and svc dev's `/_dev` helpers.
 */
export function mountSuspension(app: H3, services: Services) {
  const routes: [string, typeof devRoute][] = [];
  if (services.config.mode === 'dev') routes.push(['/_dev/v1', devRoute]);
  if (services.config.operatorToken) routes.push(['/_operator/v1', operatorRoute]);
  const target = z.object({ slug: z.string(), reason: z.string().min(1).max(200).optional() }).strict();
  const suspend = (suspended: boolean) => (raw: unknown) => {
    const { slug, reason } = parseWith(target, raw);
    return transaction(services.db, async () => {
      const site = await services.db.select().from(sites).where(eq(sites.slug, slug)).get();
      if (!site) throw fail(404, 'STOREFRONT_SITE_NOT_FOUND', { slug });
      const changed = await changeSite(
        services.db,
        site,
        suspended ? { status: 'SUSPENDED', suspensionReason: reason ?? 'OPERATOR' } : { status: 'ACTIVE', suspensionReason: null },
        services.clock.now(),
      );
      return { slug, status: changed.status, reason: changed.suspensionReason };
    });
  };
  // The whole store's hosting: its site (if any) shows the suspension page and every storefront change is refused.
  const storeTarget = z.object({ storeId: z.string(), reason: z.string().min(1).max(200).optional() }).strict();
  const suspendStore = (suspended: boolean) => (raw: unknown) => {
    const { storeId, reason } = parseWith(storeTarget, raw);
    return transaction(services.db, async () => {
      const now = services.clock.now();
      if (!(await setStoreSuspension(services.db, storeId, suspended ? (reason ?? 'OPERATOR') : null, now))) throw fail(404, 'STORE_NOT_FOUND', { storeId });
      const site = await services.db.select().from(sites).where(eq(sites.storeId, storeId)).get();
      if (site) await changeSite(services.db, site, {}, now);
      return { storeId, suspended, reason: suspended ? (reason ?? 'OPERATOR') : null };
    });
  };
  for (const [prefix, route] of routes) {
    app.post(`${prefix}/storefront/suspension`, route(services, suspend(true)));
    app.delete(`${prefix}/storefront/suspension`, route(services, suspend(false)));
    app.post(`${prefix}/storefront/store-suspension`, route(services, suspendStore(true)));
    app.delete(`${prefix}/storefront/store-suspension`, route(services, suspendStore(false)));
  }
}
