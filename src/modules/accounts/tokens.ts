import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import type { Services } from '../../server/services.js';

/** Audience of every account token: the administration and buyer APIs of this deployment. */
export const TOKEN_AUDIENCE = 'svc-api';

export type TokenClaims = JWTPayload & {
  sub: string;
  jti: string;
  /** `login` (OAuth grant) or `access` (account access token); anything else is a retired kind. */
  typ: string;
  /** Login tokens: the grant (login session) they belong to. */
  sid?: string;
};

export async function signToken(services: Services, claims: TokenClaims, expiresAtMs: number): Promise<string> {
  const nowSec = Math.floor(services.clock.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid: services.keys.kid, typ: 'JWT' })
    .setIssuer(services.urls.issuer)
    .setAudience(TOKEN_AUDIENCE)
    .setIssuedAt(nowSec)
    .setExpirationTime(Math.floor(expiresAtMs / 1000))
    .sign(services.keys.privateKey);
}

/**
 * Signature checks are the costly part of authentication and a token's claims never change, so each
 * token string is verified once and its claims remembered. Expiry and revocation are still decided on
 * every request, from the clock and the token's record.
 *
 * Remembered by the end of the signature: a request's token is a new string of some 300 characters each
 * time, and hashing it whole for the lookup cost more than the rest of the check. The whole token is then
 * compared, so a token that only ends alike is verified as any other.
 */
const verified = new Map<string, { token: string; claims: TokenClaims }>();
const VERIFIED_CACHE_LIMIT = 20_000;
const KEY_CHARS = 32;

export async function verifyToken(services: Services, token: string): Promise<TokenClaims | null> {
  const key = token.slice(-KEY_CHARS);
  const cached = verified.get(key);
  if (cached?.token === token) return cached.claims;
  try {
    const { payload } = await jwtVerify<TokenClaims>(token, services.keys.publicKey, {
      issuer: services.urls.issuer,
      audience: TOKEN_AUDIENCE,
      algorithms: ['EdDSA'],
      currentDate: new Date(services.clock.now()),
    });
    if (typeof payload.sub !== 'string' || typeof payload.jti !== 'string' || typeof payload.typ !== 'string') return null;
    if (verified.size >= VERIFIED_CACHE_LIMIT) verified.clear();
    verified.set(key, { token, claims: payload });
    return payload;
  } catch {
    return null;
  }
}

/** Refresh tokens, authorization codes and reset tokens are random strings stored only as hashes. */
export const hashSecret = (value: string) => createHash('sha256').update(value).digest('base64url');
