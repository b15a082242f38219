import { whenAnswered } from '../../db/client.js';
import type { Principal } from '../../kernel/identity.js';
import { fail } from '../../server/errors.js';
import type { StoreContext } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { findMembership, STORE_CODE, storeNamedBy } from './service.js';

/** `X-Store-Id` (a store id or code) against the token's store scope, then membership (spec 01 §7). */
export function resolveStore(services: Services, principal: Principal, header: string | null): StoreContext | Promise<StoreContext> {
  if (!header) throw fail(400, 'STORE_ID_REQUIRED');
  return whenAnswered(STORE_CODE.test(header) ? storeIdOfCode(services, principal, header) : header, (storeId) => {
    if (principal.storeIds !== null && !principal.storeIds.includes(storeId)) throw fail(403, 'STORE_NOT_GRANTED');
    // An app is no member: its consented scopes (capped by the installer's role at consent) are its whole permission.
    if (principal.kind === 'installation') return { id: storeId, role: 'OWNER', memberId: principal.tokenId };
    return whenAnswered(findMembership(services.db, storeId, principal.userId, services.clock.now()), (membership): StoreContext => {
      if (!membership) throw fail(403, 'NOT_A_MEMBER');
      return { id: storeId, role: membership.role, memberId: membership.memberId };
    });
  });
}

/**
 * A store code names only a store the caller could work in: another tenant's code answers exactly as a
 * code nobody holds (404 `STORE_NOT_FOUND`), so codes reveal nothing. The caller's own store outside the
 * token's store scope goes on to `STORE_NOT_GRANTED`, as its id would.
 */
async function storeIdOfCode(services: Services, principal: Principal, code: string): Promise<string> {
  const store = await storeNamedBy(services.db, code);
  const reachable =
    store !== undefined &&
    (principal.kind === 'installation'
      ? principal.storeIds!.includes(store.id)
      : (await findMembership(services.db, store.id, principal.userId, services.clock.now())) !== undefined);
  if (!reachable) throw fail(404, 'STORE_NOT_FOUND');
  return store.id;
}
