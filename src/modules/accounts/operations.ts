import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { defineOperation } from '../../server/registry.js';
import { ask } from '../../server/hooks.js';
import { STORE_PLATFORM_CLIENT } from './clients.js';
import { connectionSchema, disconnectClient, disconnectedSchema, listConnections } from './connections.js';
import { clientAddress } from './oauth.js';
import { accessTokens } from './schema.js';
import { ALL_SCOPES, isKnownScope } from '../../kernel/scopes.js';
import {
  ACCESS_TOKEN_DEFAULT_DAYS,
  ACCESS_TOKEN_MAX_DAYS,
  accessTokenSchema,
  createAccessToken,
  FRESH_LOGIN_SECONDS,
  newAccessTokenSchema,
  presentAccessToken,
  revokeAccessToken,
} from './access-tokens.js';
import { loginTokensSchema, openLoginSession, revokeLoginSession } from './login-sessions.js';
import { confirmPasswordReset, requestPasswordReset } from './password-reset.js';
import { verifyCredentials } from './sign-in.js';
import { newAccountSchema, signup } from './users.js';

const tag = 'Accounts';
const password = z.string().min(8).max(128);

/** The account and token behind a request (`GET /auth/v1/me`). */
const meSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  token: z.object({
    kind: z.enum(['login', 'access', 'installation']),
    tokenId: z.string(),
    clientId: z.string().nullable(),
    storePlatform: z.boolean(),
    /** null: every scope the role allows. */
    scopes: z.array(z.string()).nullable(),
    storeScope: accessTokenSchema.shape.storeScope,
    agent: z.boolean(),
    buyerDelegation: z.boolean(),
  }),
});

export const accountOperations = [
  defineOperation({
    operationId: 'signup',
    method: 'POST',
    path: '/auth/v1/signup',
    summary: 'Create an account',
    tag,
    auth: 'none',
    status: 201,
    body: z.object({ email: z.email().max(254), password, name: z.string().min(1).max(50) }).strict(),
    response: newAccountSchema,
    errors: { 409: ['EMAIL_TAKEN'] },
    async: true,
    handler: (ctx) => signup(ctx.services, ctx.body),
  }),
  defineOperation({
    operationId: 'login',
    method: 'POST',
    path: '/auth/v1/login',
    summary: 'Log in with e-mail and password; returns a store-platform login token pair',
    tag,
    auth: 'none',
    body: z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(128) }).strict(),
    response: loginTokensSchema.extend({ user: newAccountSchema.pick({ userId: true, email: true, name: true }) }),
    errors: { 401: ['INVALID_LOGIN'], 429: ['LOGIN_THROTTLED'] },
    async: true,
    handler: async (ctx) => {
      const user = await verifyCredentials(ctx.services, ctx.body.email, ctx.body.password, clientAddress(ctx.event, ctx.services));
      const tokens = await openLoginSession(ctx.services, { userId: user.id, clientId: STORE_PLATFORM_CLIENT, scope: '*', authTime: ctx.clock.now() });
      return { ...tokens, user: { userId: user.id, email: user.email, name: user.name } };
    },
  }),
  defineOperation({
    operationId: 'logout',
    method: 'POST',
    path: '/auth/v1/logout',
    summary: 'End the calling login session (its refresh token stops working, its access tokens are revoked)',
    tag,
    auth: 'account',
    callers: ['login'],
    idempotent: false,
    response: z.object({ loggedOut: z.literal(true) }),
    handler: async (ctx) => {
      await revokeLoginSession(ctx.services, ctx.principal!.tokenId);
      return { loggedOut: true };
    },
  }),
  defineOperation({
    operationId: 'getMe',
    method: 'GET',
    path: '/auth/v1/me',
    summary: 'The account and token behind the request',
    tag,
    auth: 'account',
    response: meSchema,
    handler: (ctx): z.output<typeof meSchema> => {
      const p = ctx.principal!;
      return {
        userId: p.userId,
        email: p.email,
        name: p.userName,
        token: {
          kind: p.kind,
          tokenId: p.tokenId,
          clientId: p.clientId,
          storePlatform: p.storePlatform,
          scopes: p.scopes === null ? null : [...p.scopes],
          storeScope: p.storeIds === null ? { all: true } : { storeIds: [...p.storeIds] },
          agent: p.agent,
          buyerDelegation: p.buyerDelegation,
        },
      };
    },
  }),
  defineOperation({
    operationId: 'createAccessToken',
    method: 'POST',
    path: '/auth/v1/access-tokens',
    summary: 'Create an access token; its value is shown only in this response',
    tag,
    auth: 'account',
    callers: ['storePlatform'],
    freshLoginSeconds: FRESH_LOGIN_SECONDS,
    status: 201,
    body: z
      .object({
        name: z.string().min(1).max(50),
        // The enum is for the document; the refinement keeps the field code UNKNOWN_SCOPE.
        scopes: z
          .array(
            z
              .string()
              .refine(isKnownScope, { message: `알 수 없는 범위입니다. 사용 가능: ${ALL_SCOPES.join(', ')}`, params: { code: 'UNKNOWN_SCOPE' } })
              .meta({ enum: ALL_SCOPES }),
          )
          .min(1)
          .max(ALL_SCOPES.length),
        storeScope: z.union([z.object({ all: z.literal(true) }).strict(), z.object({ storeIds: z.array(z.string().min(1)).min(1).max(100) }).strict()]),
        expiresInDays: z.number().int().min(1).max(ACCESS_TOKEN_MAX_DAYS).default(ACCESS_TOKEN_DEFAULT_DAYS),
        agent: z.boolean().default(false),
        buyerDelegation: z.boolean().default(false),
      })
      .strict(),
    response: newAccessTokenSchema,
    errors: { 403: ['NOT_A_MEMBER'], 409: ['TOKEN_LIMIT_EXCEEDED'] },
    async: true,
    handler: async (ctx) => {
      const { storeScope } = ctx.body;
      if ('storeIds' in storeScope) {
        const mine = new Set(await ask(ctx.db, 'storeIdsOfMember')(ctx.db, ctx.principal!.userId));
        const foreign = storeScope.storeIds.filter((id) => !mine.has(id));
        if (foreign.length) throw fail(403, 'NOT_A_MEMBER', { storeIds: foreign });
      }
      return createAccessToken(ctx.services, ctx.principal!.userId, { ...ctx.body, scopes: [...new Set(ctx.body.scopes)] });
    },
  }),
  defineOperation({
    operationId: 'listAccessTokens',
    method: 'GET',
    path: '/auth/v1/access-tokens',
    summary: "The caller's access tokens (values are never shown again)",
    tag,
    auth: 'account',
    callers: ['storePlatform'],
    response: z.object({ contents: z.array(accessTokenSchema) }),
    handler: async (ctx) => {
      const rows = await ctx.db.select().from(accessTokens).where(eq(accessTokens.userId, ctx.principal!.userId)).orderBy(desc(accessTokens.createdAt)).all();
      return { contents: rows.map((r) => presentAccessToken(r, ctx.now)) };
    },
  }),
  defineOperation({
    operationId: 'revokeAccessToken',
    method: 'DELETE',
    path: '/auth/v1/access-tokens/{tokenId}',
    summary: 'Revoke an access token; it stops working at once',
    tag,
    auth: 'account',
    callers: ['storePlatform'],
    params: z.object({ tokenId: z.string() }),
    response: accessTokenSchema,
    errors: { 404: ['NOT_FOUND'] },
    handler: (ctx) => revokeAccessToken(ctx.services, ctx.principal!.userId, ctx.params.tokenId),
  }),
  defineOperation({
    operationId: 'listConnections',
    method: 'GET',
    path: '/auth/v1/connections',
    summary: 'Apps (OAuth clients) the account consented to: scopes, store scope, last use',
    tag,
    auth: 'account',
    callers: ['storePlatform'],
    response: z.object({ contents: z.array(connectionSchema) }),
    handler: async (ctx) => ({ contents: await listConnections(ctx.services, ctx.principal!.userId) }),
  }),
  defineOperation({
    operationId: 'disconnectConnection',
    method: 'DELETE',
    path: '/auth/v1/connections/{clientId}',
    summary: 'Disconnect an app: its refresh tokens are erased and its login tokens refused (here at once, everywhere within 2 minutes)',
    tag,
    auth: 'account',
    callers: ['storePlatform'],
    params: z.object({ clientId: z.string() }),
    response: disconnectedSchema,
    errors: { 404: ['CONNECTION_NOT_FOUND'] },
    // Its own transaction: the principal cache is dropped only after the revocation committed.
    async: true,
    handler: (ctx) => disconnectClient(ctx.services, ctx.principal!.userId, ctx.params.clientId),
  }),
  defineOperation({
    operationId: 'requestPasswordReset',
    method: 'POST',
    path: '/auth/v1/password-reset',
    summary: 'Mail a password-reset token (the answer is the same for unknown e-mails)',
    tag,
    auth: 'none',
    status: 202,
    body: z.object({ email: z.string().min(1).max(254) }).strict(),
    response: z.object({ requested: z.literal(true) }),
    errors: { 429: ['PASSWORD_RESET_THROTTLED'] },
    handler: async (ctx) => {
      await requestPasswordReset(ctx.services, ctx.body.email);
      return { requested: true };
    },
  }),
  defineOperation({
    operationId: 'confirmPasswordReset',
    method: 'POST',
    path: '/auth/v1/password-reset/confirm',
    summary: 'Set a new password; every login and access token of the account is revoked',
    tag,
    auth: 'none',
    body: z.object({ token: z.string().min(1), newPassword: password }).strict(),
    response: z.object({ passwordChanged: z.literal(true) }),
    errors: { 400: ['RESET_TOKEN_INVALID'] },
    async: true,
    handler: async (ctx) => {
      await confirmPasswordReset(ctx.services, ctx.body.token, ctx.body.newPassword);
      return { passwordChanged: true };
    },
  }),
];
