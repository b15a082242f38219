/**
 * Sign-in with the service's own OAuth 2.1 authorization server, as the first-party public client `svc-console`:
 * authorization code + PKCE (S256), refresh by the server's rotation. Tokens live in this module's memory only
 * (never localStorage or a cookie): a reload signs in again. Only the PKCE verifier and state cross the
 * redirect, in sessionStorage, and are removed at the callback.
 */
const CLIENT_ID = 'svc-console';
const PENDING_KEY = 'svc-console:pkce';
const redirectUri = () => `${location.origin}/console/callback`;

interface Tokens {
  access: string;
  refresh: string;
  /** Epoch ms. */
  expiresAt: number;
}
let tokens: Tokens | null = null;
let refreshing: Promise<boolean> | null = null;

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = (size: number) => base64url(crypto.getRandomValues(new Uint8Array(size)));

/** Leaves for the authorization page; back at /console/callback, finishSignIn() takes the code. */
export async function startSignIn(returnTo = location.pathname + location.search) {
  const verifier = randomString(32);
  const state = randomString(16);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state, returnTo: returnTo.startsWith('/console/callback') ? '/console/' : returnTo }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  });
  location.assign(`/auth/authorize?${query}`);
}

async function tokenRequest(form: Record<string, string>): Promise<boolean> {
  const res = await fetch('/auth/token', { method: 'POST', body: new URLSearchParams({ client_id: CLIENT_ID, ...form }) });
  if (!res.ok) return false;
  const body = (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
  tokens = { access: body.access_token, refresh: body.refresh_token, expiresAt: Date.now() + body.expires_in * 1000 };
  return true;
}

/** At /console/callback: the code for tokens. Returns where to go next, or an error to show. */
export async function finishSignIn(): Promise<{ returnTo: string } | { error: string }> {
  const params = new URLSearchParams(location.search);
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem(PENDING_KEY);
  if (params.get('error')) return { error: params.get('error') === 'access_denied' ? '로그인이 거부되었습니다.' : `로그인 실패: ${params.get('error')}` };
  if (!pending || params.get('state') !== pending.state) return { error: '로그인 요청이 일치하지 않습니다. 다시 시도하세요.' };
  const ok = await tokenRequest({
    grant_type: 'authorization_code',
    code: params.get('code') ?? '',
    redirect_uri: redirectUri(),
    code_verifier: pending.verifier,
  });
  return ok ? { returnTo: pending.returnTo } : { error: '로그인 코드를 토큰으로 바꾸지 못했습니다. 다시 시도하세요.' };
}

/** The rotating refresh: one at a time, whoever asks. */
export function refresh(): Promise<boolean> {
  if (!tokens) return Promise.resolve(false);
  refreshing ??= tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh }).finally(() => (refreshing = null));
  return refreshing;
}

/** A valid access token (refreshed a minute before it expires), or null when signed out. */
export async function accessToken(): Promise<string | null> {
  if (tokens && tokens.expiresAt - Date.now() < 60_000) await refresh();
  return tokens?.access ?? null;
}

export const signedIn = () => tokens !== null;

export async function signOut() {
  const held = tokens;
  tokens = null;
  if (held) await fetch('/auth/revoke', { method: 'POST', body: new URLSearchParams({ client_id: CLIENT_ID, token: held.refresh }) }).catch(() => undefined);
}
