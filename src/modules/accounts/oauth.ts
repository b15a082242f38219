import { createHash } from 'node:crypto';
import { getRequestIP, type H3, type H3Event } from 'h3';
import { readBodyText } from '../../server/body.js';
import { ApiError } from '../../server/errors.js';
import { escapeHtml, htmlResponse } from '../../server/html.js';
import type { Services } from '../../server/services.js';
import { reserveAttempt, type ThrottleRule } from '../../server/throttle.js';
import { findClient, registrableRedirect, REGISTERED_CLIENT_PREFIX, type OAuthClient } from './clients.js';
import { oauthClients } from './schema.js';
import { newId } from '../../db/ids.js';
import { ALL_SCOPES, describeScopes } from '../../kernel/scopes.js';
import { createAuthorizationCode, takeAuthorizationCode } from './authorization-codes.js';
import { openLoginSession, refreshLogin, revokeLoginSession, revokePresentedToken } from './login-sessions.js';
import { verifyCredentials } from './sign-in.js';
import { KOREAN_FONT_FAMILY, KOREAN_FONT_LINK } from '../../server/fonts.js';

/** OAuth requests are small forms; nothing larger is read (RFC 6749 sets no size, so we do). */
const OAUTH_BODY_LIMIT = 64 * 1024;
/**
 * The budget of open client registration (RFC 7591 sets none): a client's metadata is a name and a few
 * redirect addresses, and one address registers a few clients an hour — not a table's worth.
 */
const REGISTRATION = { bodyBytes: 16 * 1024, redirectUris: 10, redirectUriLength: 1000, nameLength: 100 } as const;
const REGISTRATIONS: ThrottleRule = { limit: 20, windowMs: 60 * 60_000 };

/** The client's address, for attempt limits (the proxy's `X-Forwarded-For` only when told to trust it). */
export const clientAddress = (event: H3Event, services: Services) => getRequestIP(event, { xForwardedFor: services.config.trustProxy }) ?? 'unknown';

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
    registration_endpoint: `${auth}/register`,
    jwks_uri: `${auth}/jwks.json`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: ALL_SCOPES,
    // RFC 9207: every authorization response (success or error) names the issuer in `iss`.
    authorization_response_iss_parameter_supported: true,
  };
  app.get('/auth/.well-known/oauth-authorization-server', () => metadata);
  // RFC 8414 §3.1: for an issuer with a path, the metadata also sits at the root with the path appended.
  app.get('/.well-known/oauth-authorization-server/auth', () => metadata);
  app.get('/auth/jwks.json', () => ({ keys: [services.keys.publicJwk] }));
  // RFC 9728 §3: `resource` is exactly the identifier whose well-known address answered.
  const resourceMetadata = (resource: string) => ({
    resource,
    authorization_servers: [issuer],
    scopes_supported: ALL_SCOPES,
    bearer_methods_supported: ['header'],
    resource_documentation: `${services.config.origin}/v1/openapi.json`,
  });
  app.get('/.well-known/oauth-protected-resource', () => resourceMetadata(services.config.origin));
  app.get('/.well-known/oauth-protected-resource/v1', () => resourceMetadata(admin));
  // Remote MCP (src/modules/mcp) is a resource of its own: MCP clients look for its metadata here.
  app.get('/.well-known/oauth-protected-resource/mcp', () => resourceMetadata(`${services.config.origin}/mcp`));

  app.post('/auth/register', async (event) => {
    try {
      await reserveAttempt(services.db, `register:${clientAddress(event, services)}`, REGISTRATIONS, services.clock.now(), 'REGISTRATION_THROTTLED');
    } catch (error) {
      if (error instanceof ApiError && error.status === 429)
        return oauthError(429, 'temporarily_unavailable', 'too many client registrations from this address: retry after Retry-After seconds', error.headers);
      throw error;
    }
    const metadata = await readJsonObject(event);
    return metadata instanceof Response ? metadata : registerClient(services, metadata);
  });

  app.get('/auth/authorize', async (event) => {
    const request = await authorizationRequest(services, event.url.searchParams);
    return authorizeAnswer(request, issuer) ?? consentPage(request as AuthorizationRequest);
  });

  app.post('/auth/authorize', async (event) => {
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await readBodyText(event, OAUTH_BODY_LIMIT));
    } catch (error) {
      if (error instanceof ApiError) return errorPage(error.message, error.status);
      throw error;
    }
    const request = await authorizationRequest(services, form);
    const refused = authorizeAnswer(request, issuer);
    if (refused) return refused;
    const valid = request as AuthorizationRequest;
    if (form.get('decision') !== 'allow') return redirectWith(valid.redirectUri, { error: 'access_denied', state: valid.state, iss: issuer });
    try {
      const user = await verifyCredentials(services, form.get('email') ?? '', form.get('password') ?? '', clientAddress(event, services));
      const code = await createAuthorizationCode(services, {
        userId: user.id,
        clientId: valid.client.clientId,
        redirectUri: valid.redirectUri,
        codeChallenge: valid.codeChallenge,
        scope: valid.scope,
        authTime: services.clock.now(),
      });
      return redirectWith(valid.redirectUri, { code, state: valid.state, iss: issuer });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'INVALID_LOGIN')
        return consentPage(valid, '이메일 또는 비밀번호가 올바르지 않습니다.', form.get('email') ?? '');
      if (error instanceof ApiError && error.status === 429) return consentPage(valid, error.message, form.get('email') ?? '', 429, error.headers);
      throw error;
    }
  });

  app.post('/auth/token', async (event) => {
    const params = await readTokenRequest(event);
    if (params instanceof Response) return params;
    const clientId = params.get('client_id');
    const grant = params.get('grant_type');
    try {
      if (grant === 'authorization_code') {
        const taken = await takeAuthorizationCode(services, params.get('code') ?? '');
        // RFC 6749 §4.1.2: a code presented twice was stolen; what it already gave out is revoked.
        if (taken?.replayedSessionId) await revokeLoginSession(services, taken.replayedSessionId);
        const code = taken?.code;
        const verifier = params.get('code_verifier') ?? '';
        if (!code || code.clientId !== clientId || code.redirectUri !== params.get('redirect_uri'))
          return oauthError(400, 'invalid_grant', 'authorization code is invalid, used or expired');
        if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || s256(verifier) !== code.codeChallenge)
          return oauthError(400, 'invalid_grant', 'PKCE verification failed');
        return tokenResponse(
          await openLoginSession(services, {
            sessionId: code.sessionId!,
            userId: code.userId,
            clientId: code.clientId,
            scope: code.scope,
            authTime: code.authTime,
          }),
        );
      }
      if (grant === 'refresh_token') {
        return tokenResponse(await refreshLogin(services, params.get('refresh_token') ?? '', clientId));
      }
      return oauthError(400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_grant')
        return oauthError(400, 'invalid_grant', 'refresh token is invalid, used, revoked or expired');
      throw error;
    }
  });

  // RFC 7009: refresh tokens, login access tokens (their whole session) and account access tokens. An
  // unknown or already invalid token is answered 200 alike; the hint only says where to look first.
  app.post('/auth/revoke', async (event) => {
    const params = await readTokenRequest(event);
    if (params instanceof Response) return params;
    const token = params.get('token');
    if (!token) return oauthError(400, 'invalid_request', 'token is required');
    const outcome = await revokePresentedToken(services, token, params.get('client_id'));
    if (outcome === 'OTHER_CLIENT') return oauthError(400, 'unauthorized_client', 'the token was not issued to this client');
    return new Response(null, { status: 200, headers: { 'cache-control': 'no-store' } });
  });
}

interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  scope: string;
}

/** Refused before the client and its redirect address are known to be genuine: shown on our page only. */
interface PageError {
  pageError: string;
}

/** Refused after they are: sent back to the client as an RFC 6749 §4.1.2.1 error redirect. */
interface RedirectError {
  redirectUri: string;
  state: string | null;
  error: 'invalid_request' | 'unsupported_response_type' | 'invalid_scope';
  description: string;
}

async function authorizationRequest(services: Services, params: URLSearchParams): Promise<AuthorizationRequest | PageError | RedirectError> {
  const client = await findClient(services.db, params.get('client_id') ?? '');
  if (!client) return { pageError: '알 수 없는 클라이언트입니다 (client_id).' };
  const redirectUri = params.get('redirect_uri') ?? '';
  // RFC 6749 §3.1.2: a redirection endpoint has no fragment. Until the address is trusted, errors stay here.
  if (redirectUri.includes('#') || !client.allowsRedirect(redirectUri, services.config.origin)) return { pageError: '허용되지 않은 redirect_uri입니다.' };
  const state = params.get('state');
  const refuse = (error: RedirectError['error'], description: string): RedirectError => ({ redirectUri, state, error, description });
  if (params.get('response_type') !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
  if (params.get('code_challenge_method') !== 'S256') return refuse('invalid_request', 'PKCE with code_challenge_method S256 is required');
  const codeChallenge = params.get('code_challenge') ?? '';
  if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge)) return refuse('invalid_request', 'code_challenge must be a base64url SHA-256 value');
  const requested = (params.get('scope') ?? '').split(' ').filter(Boolean);
  const unknown = requested.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length) return refuse('invalid_scope', `unknown scopes: ${unknown.join(', ')}`);
  // First-party clients get every scope the user's roles allow; others only what they asked for.
  const scope = client.firstParty ? '*' : requested.join(' ');
  return { client, redirectUri, codeChallenge, state, scope };
}

/** The answer to a refused authorization request, or null when it is valid. */
function authorizeAnswer(request: Awaited<ReturnType<typeof authorizationRequest>>, issuer: string): Response | null {
  if ('pageError' in request) return errorPage(request.pageError);
  if ('error' in request)
    return redirectWith(request.redirectUri, { error: request.error, error_description: request.description, state: request.state, iss: issuer });
  return null;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * The JSON object of a registration request, null when the body is not one (answered
 * invalid_client_metadata), or the OAuth error of a body over the budget.
 */
async function readJsonObject(event: H3Event): Promise<Record<string, unknown> | null | Response> {
  try {
    const value = JSON.parse(await readBodyText(event, REGISTRATION.bodyBytes)) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 413)
      return oauthError(413, 'invalid_client_metadata', `request body over ${REGISTRATION.bodyBytes} bytes`);
    return null;
  }
}

/**
 * RFC 7591 dynamic client registration, open to anyone (as MCP clients need to connect by URL alone): a
 * public client using the authorization code with PKCE, whose logins are AI-agent connections and get only
 * the scopes the person consents to. Nothing but the name and redirect addresses is kept.
 */
async function registerClient(services: Services, metadata: Record<string, unknown> | null) {
  if (!metadata) return oauthError(400, 'invalid_client_metadata', 'the body must be a JSON object of client metadata');
  const uris = metadata.redirect_uris;
  if (
    !Array.isArray(uris) ||
    uris.length === 0 ||
    uris.length > REGISTRATION.redirectUris ||
    !uris.every((u) => typeof u === 'string' && u.length <= REGISTRATION.redirectUriLength)
  ) {
    return oauthError(
      400,
      'invalid_redirect_uri',
      `redirect_uris must list 1 to ${REGISTRATION.redirectUris} addresses of at most ${REGISTRATION.redirectUriLength} characters`,
    );
  }
  const refused = (uris as string[]).find((u) => !registrableRedirect(u));
  if (refused)
    return oauthError(
      400,
      'invalid_redirect_uri',
      `not an allowed redirect address (https, loopback http, or an app's own reverse-domain scheme such as com.example.app:/callback): ${refused}`,
    );
  const grants = metadata.grant_types ?? ['authorization_code', 'refresh_token'];
  if (!Array.isArray(grants) || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    return oauthError(400, 'invalid_client_metadata', 'grant_types may be authorization_code and refresh_token only');
  }
  if (metadata.client_name !== undefined && (typeof metadata.client_name !== 'string' || metadata.client_name.length > REGISTRATION.nameLength)) {
    return oauthError(400, 'invalid_client_metadata', `client_name must be text of at most ${REGISTRATION.nameLength} characters`);
  }
  const name = metadata.client_name?.trim() || 'MCP 클라이언트';
  const now = services.clock.now();
  const id = newId(REGISTERED_CLIENT_PREFIX.slice(0, -1), now);
  await services.db
    .insert(oauthClients)
    .values({ id, name, redirectUris: uris as string[], createdAt: now })
    .run();
  return new Response(
    JSON.stringify({
      client_id: id,
      client_id_issued_at: Math.floor(now / 1000),
      client_name: name,
      redirect_uris: uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // Public clients only: whatever method was asked for, PKCE stands in for a secret.
      token_endpoint_auth_method: 'none',
    }),
    { status: 201, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } },
  );
}

/** A token or revocation request (form, or JSON for lenient clients), or the OAuth error answering it. */
async function readTokenRequest(event: H3Event): Promise<URLSearchParams | Response> {
  let text: string;
  try {
    text = await readBodyText(event, OAUTH_BODY_LIMIT);
  } catch (error) {
    if (error instanceof ApiError)
      return oauthError(error.status, 'invalid_request', error.status === 413 ? `request body over ${OAUTH_BODY_LIMIT} bytes` : 'request body is not UTF-8');
    throw error;
  }
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
  return new Response(
    JSON.stringify({
      access_token: tokens.accessToken,
      token_type: 'Bearer',
      expires_in: tokens.expiresIn,
      refresh_token: tokens.refreshToken,
      scope: tokens.scope,
    }),
    { headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } },
  );
}

const oauthError = (status: number, error: string, description: string, headers?: Record<string, string>) =>
  new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });

function redirectWith(uri: string, params: Record<string, string | null>) {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return new Response(null, { status: 302, headers: { location: url.toString() } });
}

export const PAGE_STYLE = `body{font-family:${KOREAN_FONT_FAMILY};background:#f5f6f8;margin:0;display:grid;place-items:center;min-height:100vh}
main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0001;padding:32px;width:340px}h1{font-size:20px;margin:0 0 4px}p{color:#555;font-size:14px}
label{display:block;font-size:13px;margin:14px 0 4px}input{width:100%;box-sizing:border-box;padding:10px;border:1px solid #ccd;border-radius:8px;font-size:15px}
.row{display:flex;gap:8px;margin-top:20px}button,input{font-family:inherit}button{flex:1;padding:11px;border:0;border-radius:8px;font-size:15px;cursor:pointer}
button[value=allow]{background:#1f5eff;color:#fff}button[value=deny]{background:#eef}.err{color:#c00;font-size:13px}ul{font-size:13px;color:#444;padding-left:18px}`;

function consentPage(request: AuthorizationRequest, error?: string, email = '', status = 200, headers?: Record<string, string>) {
  const hidden = ['client_id', 'redirect_uri', 'code_challenge', 'state', 'scope']
    .map((name) => {
      const value = {
        client_id: request.client.clientId,
        redirect_uri: request.redirectUri,
        code_challenge: request.codeChallenge,
        state: request.state ?? '',
        scope: request.scope === '*' ? '' : request.scope,
      }[name]!;
      return `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
    })
    .join('');
  // Logins reach every store of the person (store scope), each within the role there and the scopes below.
  const scopes =
    '<li>상점 범위: 내가 속한 모든 상점 (각 상점의 내 역할 안에서)</li>' +
    (request.scope === '*'
      ? '<li>내 역할이 허용하는 모든 상점 작업</li>'
      : describeScopes(request.scope.split(' '))
          .map(
            ({ group, items }) => `<li class="scope-group"><b>${escapeHtml(group)}</b><ul>${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul></li>`,
          )
          .join(''));
  const agentNotice = request.client.agent ? '<p class="err">AI 에이전트 연결입니다: 일부 작업은 승인을 기다리고, 일부는 허용되지 않습니다.</p>' : '';
  return htmlResponse(
    `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>svc 로그인</title>${KOREAN_FONT_LINK}<style>${PAGE_STYLE}</style></head>
<body><main><h1>svc 로그인</h1><p><b>${escapeHtml(request.client.name)}</b>이(가) 내 계정으로 다음 권한을 요청합니다.</p>${agentNotice}<ul>${scopes}</ul>
${error ? `<p class="err">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/auth/authorize">${hidden}<input type="hidden" name="response_type" value="code"><input type="hidden" name="code_challenge_method" value="S256">
<label for="email">이메일</label><input id="email" name="email" type="email" autocomplete="username" value="${escapeHtml(email)}" required>
<label for="password">비밀번호</label><input id="password" name="password" type="password" autocomplete="current-password">
<div class="row"><button name="decision" value="deny" formnovalidate>거부</button><button name="decision" value="allow">허용하고 로그인</button></div></form></main></body></html>`,
    status,
    headers,
  );
}

function errorPage(message: string, status = 400) {
  return htmlResponse(
    `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>svc 로그인 오류</title>${KOREAN_FONT_LINK}<style>${PAGE_STYLE}</style></head><body><main><h1>로그인할 수 없습니다</h1><p class="err">${escapeHtml(message)}</p></main></body></html>`,
    status,
  );
}
