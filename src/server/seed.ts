import { transaction } from '../db/client.js';
import { STORE_PLATFORM_CLIENT } from '../modules/accounts/index.js';
import { createAccount, openLoginSession, userByEmail } from '../modules/accounts/index.js';
import { createStore, findStoreByCode } from '../modules/stores/index.js';
import type { Services } from './services.js';

export const SEED_EMAIL = 'dev@svc.local';
export const SEED_PASSWORD = 'svc-dev-password';
export const SEED_STORE_CODE = 'dev-store';
/**
 * SEED_PASSWORD's scrypt hash, made once (hashPassword's parameters): a fresh data dir's start would otherwise
 * spend ~50 ms of CPU hashing a password that is public anyway — every svc dev prints it (issue 31).
 */
const SEED_PASSWORD_HASH = 'scrypt$rJaQmz4teSBRs-yqAucRNw$vteZQN2A2ctMiKFfiIPemQUDXHFng4Yn0WMfaeS7u28';

/** The seeded account and store of `svc dev` (DESIGN.md §3); made once, found on later starts. */
export async function seedDevStore(services: Services) {
  let user = await userByEmail(services.db, SEED_EMAIL);
  if (!user) {
    await createAccount(services, { email: SEED_EMAIL, passwordHash: SEED_PASSWORD_HASH, name: '개발자' });
    user = (await userByEmail(services.db, SEED_EMAIL))!;
  }
  let store = await findStoreByCode(services.db, SEED_STORE_CODE);
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
