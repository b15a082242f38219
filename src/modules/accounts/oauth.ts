import { createHash } from 'node:crypto';
import type { H3, H3Event } from 'h3';
import { ApiError } from '../../server/errors.js';
import { escapeHtml, htmlResponse } from '../../server/html.js';
import type { Services } from '../../server/services.js';
import { findClient } from './clients.js';
import { ALL_SCOPES } from './scopes.js';
import { createAuthorizationCode, openLoginSession, refreshLogin, revokeRefreshToken, takeAuthorizationCode, verifyCredentials } from './service.js';

/**
 * The OAuth 2.1 authorization server: authorization code with PKCE (S256 only), refresh rotation,
 * RFC 8414 metadata, JWKS and RFC 7009 revocation. These endpoints answer in OAuth's own formats
 * (RFC 6749 §5.2 errors), which OAuth client libraries expect, rather than in the API envelope.
 */
export function mountOAuth(app: H3, services: Services) {
  const { auth, issuer, admin } = services.urls;
  const metadata = {
    issuer,
    authorization_endpoint: `${auth}/authorize`,
    token_endpoint: `${auth}/token`,
    revocation_endpoint: `${auth}/revoke`,
    jwks_uri: `${auth}/jwks.json`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ALL_SCOPES,
  };
  app.get('/auth/.well-known/oauth-authorization-server', () => metadata);
  // RFC 8414 §3.1: for an issuer with a path, the metadata also sits at the root with the path appended.
  app.get('/.well-known/oauth-authorization-server/auth', () => metadata);
  app.get('/auth/jwks.json', () => ({ keys: [services.keys.publicJwk] }));
  app.get('/.well-known/oauth-protected-resource', () => ({
    resource: admin,
    authorization_servers: [issuer],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: ['header'],
    resource_documentation: `${services.config.origin}/v1/openapi.json`,
  }));

  app.get('/auth/authorize', (event) => {
    const request = authorizationRequest(event.url.searchParams);
    if ('error' in request) return errorPage(request.error);
    return consentPage(request);
  });

  app.post('/auth/authorize', async (event) => {
    const form = new URLSearchParams(await event.req.text());
    const request = authorizationRequest(form);
    if ('error' in request) return errorPage(request.error);
    if (form.get('decision') !== 'allow') return redirectWith(request.redirectUri, { error: 'access_denied', state: request.state });
    try {
      const user = await verifyCredentials(services, form.get('email') ?? '', form.get('password') ?? '');
      const code = createAuthorizationCode(services, {
        userId: user.id,
        clientId: request.client.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope: request.scope,
        authTime: services.clock.now(),
      });
      return redirectWith(request.redirectUri, { code, state: request.state, iss: issuer });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'INVALID_LOGIN') return consentPage(request, '이메일 또는 비밀번호가 올바르지 않습니다.', form.get('email') ?? '');
      throw error;
    }
  });

  app.post('/auth/token', async (event) => {
    const params = await readTokenRequest(event);
    const clientId = params.get('client_id');
    const grant = params.get('grant_type');
    try {
      if (grant === 'authorization_code') {
        const code = takeAuthorizationCode(services, params.get('code') ?? '');
        const verifier = params.get('code_verifier') ?? '';
        if (!code || code.clientId !== clientId || code.redirectUri !== params.get('redirect_uri')) return oauthError(400, 'invalid_grant', 'authorization code is invalid, used or expired');
        if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== code.codeChallenge) return oauthError(400, 'invalid_grant', 'PKCE verification failed');
        return tokenResponse(await openLoginSession(services, { userId: code.userId, clientId: code.clientId, scope: code.scope, authTime: code.authTime }));
      }
      if (grant === 'refresh_token') {
        return tokenResponse(await refreshLogin(services, params.get('refresh_token') ?? '', clientId));
      }
      return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_grant') return oauthError(400, 'invalid_grant', 'refresh token is invalid, used, revoked or expired');
      throw error;
    }
  });

  app.post('/auth/revoke', async (event) => {
    const params = await readTokenRequest(event);
    const token = params.get('token');
    if (token) revokeRefreshToken(services, token);
    return new Response(null, { status: 200 });
  });
}

interface AuthorizationRequest {
  client: NonNullable<ReturnType<typeof findClient>>;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  scope: string;
}

function authorizationRequest(params: URLSearchParams): AuthorizationRequest | { error: string } {
  const client = findClient(params.get('client_id') ?? '');
  if (!client) return { error: '알 수 없는 클라이언트입니다 (client_id).' };
  const redirectUri = params.get('redirect_uri') ?? '';
  // Before the redirect address is trusted, errors are shown here, never sent to it.
  if (!client.allowsRedirect(redirectUri)) return { error: '허용되지 않은 redirect_uri입니다.' };
  if (params.get('response_type') !== 'code') return { error: 'response_type은 code여야 합니다.' };
  if (params.get('code_challenge_method') !== 'S256') return { error: 'PKCE code_challenge_method는 S256만 지원합니다.' };
  const codeChallenge = params.get('code_challenge') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) return { error: 'code_challenge가 올바르지 않습니다.' };
  const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
  const unknown = requested.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length) return { error: `알 수 없는 범위입니다: ${unknown.join(', ')}` };
  // First-party clients get every scope the user's roles allow; others only what they asked for.
  const scope = client.firstParty ? '*' : requested.join(' ');
  return { client, redirectUri, codeChallenge, state: params.get('state'), scope };
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function readTokenRequest(event: H3Event): Promise<URLSearchParams> {
  const text = await event.req.text();
  if ((event.req.headers.get('content-type') ?? '').includes('application/json')) {
    try {
      return new URLSearchParams(Object.entries(JSON.parse(text) as Record<string, string>));
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(text);
}

function tokenResponse(tokens: Awaited<ReturnType<typeof openLoginSession>>) {
  return new Response(JSON.stringify({
    access_token: tokens.accessToken,
    token_type: 'Bearer',
    expires_in: tokens.expiresIn,
    refresh_token: tokens.refreshToken,
    scope: tokens.scope,
  }), { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

const oauthError = (status: number, error: string, description: string) =>
  new Response(JSON.stringify({ error, error_description: description }), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });

function redirectWith(uri: string, params: Record<string, string | null>) {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return new Response(null, { status: 302, headers: { location: url.toString() } });
}

const PAGE_STYLE = `body{font-family:system-ui,-apple-system,"Apple SD Gothic Neo",sans-serif;background:#f5f6f8;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:32px;width:340px}h1{font-size:20px;margin:0 0 4px}p{color:#555;font-size:14px}
label{display:block;font-size:13px;margin:14px 0 4px}input{width:100%;box-sizing:border-box;padding:10px;border:1px solid #ccd;border-radius:8px;font-size:15px}
.row{display:flex;gap:8px;margin-top:20px}button{flex:1;padding:11px;border:0;border-radius:8px;font-size:15px;cursor:pointer}
button[value=allow]{background:#1f5eff;color:#fff}button[value=deny]{background:#eef}.err{color:#c00;font-size:13px}ul{font-size:13px;color:#444;padding-left:18px}`;

function consentPage(request: AuthorizationRequest, error?: string, email = '') {
  const hidden = ['client_id', 'redirect_uri', 'code_challenge', 'state', 'scope']
    .map((name) => {
      const value = { client_id: request.client.clientId, redirect_uri: request.redirectUri, code_challenge: request.codeChallenge, state: request.state ?? '', scope: request.scope === '*' ? '' : request.scope }[name]!;
      return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
    })
    .join('');
  const scopes = request.scope === '*' ? '<li>내 역할이 허용하는 모든 상점 작업</li>' : request.scope.split(' ').map((s) => `<li>${escapeHtml(s)}</li>`).join('');
  return htmlResponse(`<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>svc 로그인</title><style>${PAGE_STYLE}</style></head>
<body><main><h1>svc 로그인</h1><p><b>${escapeHtml(request.client.name)}</b>이(가) 내 계정으로 다음 권한을 요청합니다.</p><ul>${scopes}</ul>
${error ? `<p class="err">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/auth/authorize">${hidden}<input type="hidden" name="response_type" value="code"><input type="hidden" name="code_challenge_method" value="S256">
<label for="email">이메일</label><input id="email" name="email" type="email" autocomplete="username" value="${escapeHtml(email)}" required>
<label for="password">비밀번호</label><input id="password" name="password" type="password" autocomplete="current-password">
<div class="row"><button name="decision" value="deny" formnovalidate>거부</button><button name="decision" value="allow">허용하고 로그인</button></div></form></main></body></html>`);
}

function errorPage(message: string) {
  return htmlResponse(`<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>svc 로그인 오류</title><style>${PAGE_STYLE}</style></head><body><main><h1>로그인할 수 없습니다</h1><p class="err">${escapeHtml(message)}</p></main></body></html>`, 400);
}
