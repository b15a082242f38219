import { eq } from 'drizzle-orm';
import { transaction } from '../db/client.js';
import { STORE_PLATFORM_CLIENT } from '../modules/accounts/clients.js';
import { users } from '../modules/accounts/schema.js';
import { openLoginSession, signup } from '../modules/accounts/service.js';
import { stores } from '../modules/stores/schema.js';
import { createStore } from '../modules/stores/service.js';
import type { Services } from './services.js';

export const SEED_EMAIL = 'dev@svc.local';
export const SEED_PASSWORD = 'svc-dev-password';
export const SEED_STORE_CODE = 'dev-store';

/** The seeded account and store of `svc dev` (DESIGN.md §3); made once, found on later starts. */
export async function seedDevStore(services: Services) {
  let user = await services.db.select().from(users).where(eq(users.email, SEED_EMAIL)).get();
  if (!user) {
    await signup(services, { email: SEED_EMAIL, password: SEED_PASSWORD, name: '개발자' });
    user = (await services.db.select().from(users).where(eq(users.email, SEED_EMAIL)).get())!;
  }
  let store = await services.db.select().from(stores).where(eq(stores.code, SEED_STORE_CODE)).get();
  if (!store) {
    store = await createStore(services, user.id, { name: 'Dev Store', code: SEED_STORE_CODE });
    const storeId = store.id;
    await transaction(services.db, async () => {
      for (const m of services.modules) await m.onSeed?.(services, storeId);
    });
  }
  const login = await openLoginSession(services, { userId: user.id, clientId: STORE_PLATFORM_CLIENT, scope: '*', authTime: services.clock.now() });
  return { storeId: store.id, ownerToken: login.accessToken };
}
