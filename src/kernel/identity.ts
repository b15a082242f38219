import type { CryptoKey, JWK } from 'jose';

/** Store roles of spec 01 §5.2. */
export const ROLES = ['OWNER', 'ADMIN', 'STAFF'] as const;
export type Role = (typeof ROLES)[number];

export type ActorType = 'USER' | 'AGENT' | 'APP' | 'SYSTEM';

/** The caller of a request, decided from the token's record, never from its claims alone. */
export interface Principal {
  kind: 'login' | 'access' | 'installation';
  /** Login session id (login tokens), access token id, or installation id (installation tokens). */
  tokenId: string;
  userId: string;
  userName: string;
  email: string;
  clientId: string | null;
  /** A login of the service's own store platform or CLI. */
  storePlatform: boolean;
  /** Granted scopes; null means every scope the role allows (store-platform logins). */
  scopes: ReadonlySet<string> | null;
  /** Store scope; null means every store of the user, including ones joined later. */
  storeIds: readonly string[] | null;
  agent: boolean;
  buyerDelegation: boolean;
  /** When the user last typed a password for this login. */
  authTime: number | null;
  actorType: ActorType;
  /** Audit `source`: STORE_PLATFORM, CLI, API, MCP, or the OAuth client id. */
  source: string;
}

/**
 * The caller as an MCP agent when the request says so (`X-Svc-Agent: mcp`); the cached principal is never
 * changed. Trusted from anyone: it only ever narrows what the token may do (agent policy, approvals, no
 * store-platform-only actions, no delegation), so no caller gains by sending it.
 */
export function markedAsAgent(principal: Principal, header: string | null): Principal {
  if (header !== 'mcp' || principal.kind === 'installation') return principal;
  return { ...principal, agent: true, storePlatform: false, buyerDelegation: false, actorType: 'AGENT', source: 'MCP' };
}

/**
 * RFC 9728 metadata of a protected resource, served at its path-aware well-known address (the root one
 * for the origin itself): `/v1` → `/.well-known/oauth-protected-resource/v1`.
 */
export const protectedResourceMetadataUrl = (origin: string, resourcePath = '') => `${origin}/.well-known/oauth-protected-resource${resourcePath}`;

/** A member buyer of one store, as the buyer API hands it to handlers (the customers module's record). */
export interface Buyer {
  id: string;
  storeId: string;
  /** The seller's own member id (buyer delegation). */
  uid: string | null;
  email: string | null;
  name: string | null;
  phone: string | null;
  passwordHash: string | null;
  createdAt: number;
  withdrawnAt: number | null;
}

/** The buyer API's caller: the store, and the member buyer or null for a guest. */
export interface BuyerContext {
  storeId: string;
  customer: Buyer | null;
}

/** The key that signs every account token, and the key of the service's own form tokens. */
export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** The public half as published at /auth/jwks.json. */
  publicJwk: JWK;
  /** Key of the service's own form tokens (CSRF), derived from the signing key so it needs no file of its own. */
  formKey: Buffer;
}
