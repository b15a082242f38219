import { createHash, randomBytes } from 'node:crypto';
import * as assert from 'uvu/assert';
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';

/** Answers the authorization page of `baseUrl` like the seeded owner in a browser; returns the 302's location. */
export async function authorize(baseUrl: string, authorizeUrl: string, decision: 'allow' | 'deny') {
  const url = new URL(authorizeUrl);
  const form = new URLSearchParams();
  for (const name of ['client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'response_type', 'state', 'scope']) {
    form.set(name, url.searchParams.get(name) ?? '');
  }
  form.set('email', SEED_EMAIL);
  form.set('password', SEED_PASSWORD);
  form.set('decision', decision);
  const res = await fetch(`${baseUrl}/auth/authorize`, { method: 'POST', body: form, redirect: 'manual' });
  assert.is(res.status, 302, `authorize answered ${res.status}: ${await res.clone().text()}`);
  return res.headers.get('location')!;
}

/** An OAuth login of the CLI client (`svc-cli`) done by hand: authorization code + PKCE, then /auth/token. */
export async function oauthLogin(baseUrl: string) {
  const verifier = randomBytes(32).toString('base64url');
  const authorizeUrl = new URL(`${baseUrl}/auth/authorize`);
  authorizeUrl.search = new URLSearchParams({
    client_id: 'svc-cli',
    redirect_uri: 'http://127.0.0.1:9/callback',
    response_type: 'code',
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const location = new URL(await authorize(baseUrl, authorizeUrl.toString(), 'allow'));
  const res = await fetch(`${baseUrl}/auth/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: location.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:9/callback',
      client_id: 'svc-cli',
      code_verifier: verifier,
    }),
  });
  assert.is(res.status, 200);
  const body = await res.json();
  return { accessToken: body.access_token as string, refreshToken: body.refresh_token as string };
}
