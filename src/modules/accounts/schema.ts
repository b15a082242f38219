import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** Every login and access token issued before this instant is revoked (password reset). */
    tokensValidFrom: integer('tokens_valid_from').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('users_email').on(t.email)],
);

/** One OAuth grant: a login (store platform, CLI or another client) and its rotating refresh tokens. */
export const loginSessions = sqliteTable(
  'login_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    clientId: text('client_id').notNull(),
    /** Granted scopes, space separated; `*` is every scope the user's roles allow (first-party clients). */
    scope: text('scope').notNull(),
    authTime: integer('auth_time').notNull(),
    createdAt: integer('created_at').notNull(),
    /** Absolute end: refresh rotation never carries a session past 90 days. */
    maxExpiresAt: integer('max_expires_at').notNull(),
    revokedAt: integer('revoked_at'),
    /** Last token issue or request, at most once a minute (a connected app's "last used", spec 01 §5.1). */
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [index('login_sessions_user').on(t.userId)],
);

export const refreshTokens = sqliteTable('refresh_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  sessionId: text('session_id')
    .notNull()
    .references(() => loginSessions.id),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
});

export const authorizationCodes = sqliteTable('authorization_codes', {
  codeHash: text('code_hash').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  clientId: text('client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  codeChallenge: text('code_challenge').notNull(),
  scope: text('scope').notNull(),
  authTime: integer('auth_time').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
  /** The login session the code was exchanged for, so a replayed code can revoke it. */
  sessionId: text('session_id'),
});

export const accessTokens = sqliteTable(
  'access_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    scopes: text('scopes', { mode: 'json' }).$type<string[]>().notNull(),
    /** null: every store of the user, including stores joined later. */
    storeIds: text('store_ids', { mode: 'json' }).$type<string[] | null>(),
    agent: integer('agent', { mode: 'boolean' }).notNull(),
    buyerDelegation: integer('buyer_delegation', { mode: 'boolean' }).notNull(),
    valuePrefix: text('value_prefix').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [index('access_tokens_user').on(t.userId)],
);

export const passwordResets = sqliteTable('password_resets', {
  tokenHash: text('token_hash').primaryKey(),
  userId: text('user_id')
    .notNull()
    .references(() => users.id),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
});

/**
 * OAuth clients registered by RFC 7591 dynamic client registration (MCP clients connecting by URL alone).
 * Public clients (PKCE, no secret); their logins are AI-agent connections.
 */
export const oauthClients = sqliteTable('oauth_clients', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  redirectUris: text('redirect_uris', { mode: 'json' }).$type<string[]>().notNull(),
  createdAt: integer('created_at').notNull(),
});
