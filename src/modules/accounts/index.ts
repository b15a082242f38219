import type { Db } from '../../db/client.js';
import type { Module } from '../../server/module.js';
import { mountOAuth } from './oauth.js';
import { accountOperations } from './operations.js';
import { authenticate } from './principal.js';
import { pruneExpiredGrants } from './login-sessions.js';

export const accountsModule: Module = {
  name: 'accounts',
  operations: accountOperations,
  mount: mountOAuth,
  requestHooks: { principalOf: authenticate },
  jobs: [{ name: 'accounts.prune-grants', run: pruneExpiredGrants }],
};

declare module '../../server/module.js' {
  interface Questions {
    /** The stores the user is a member of (an access token may name only those). */
    storeIdsOfMember(db: Db, userId: string): Promise<string[]>;
  }
}

export { registerFirstPartyClient, STORE_PLATFORM_CLIENT } from './clients.js';
export { loadSigningKeys } from './keys.js';
export { clientAddress, PAGE_STYLE } from './oauth.js';
export { checkPassword, hashPassword } from './password.js';
export { authenticate, bearerToken, principalOfRecord } from './principal.js';
export { openLoginSession } from './login-sessions.js';
export { verifyCredentials } from './sign-in.js';
export { createAccount, normalizeEmail, signup } from './users.js';
export { signToken, type TokenClaims, verifyToken } from './tokens.js';
export { type AccountUser, userByEmail, usersByIds } from './users.js';
export { hashSecret } from './tokens.js';
