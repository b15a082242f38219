import { makeStoreWentPublic } from '../helpers/storefront.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { callTool } from '../helpers/mcp.js';
import { authorize } from '../helpers/oauth.js';
import { login, startTestService, type TestService } from '../helpers/service.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
let svc: TestService;
let owner: string;

/** An MCP client's OAuth side as a desktop client keeps it; the person's consent is given by the test. */
class TestOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  code: string | null = null;
  consentPages: string[] = [];
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'Test Agent Desktop', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.consentPages.push(await (await fetch(url)).text());
    this.code = new URL(await authorize(svc.url, url.toString(), 'allow')).searchParams.get('code');
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

type Elicit = (request: ElicitRequest) => Promise<ElicitResult>;

/** Connects like an MCP client given the URL alone: 401 → discovery → registration → PKCE login → tools. */
async function connect(provider: TestOAuthProvider, options: { elicit?: Elicit } = {}) {
  const url = new URL(`${svc.url}/mcp`);
  const open = async () => {
    const client = new Client({ name: 'svc-test-remote', version: '1.0.0' }, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
    if (options.elicit) client.setRequestHandler(ElicitRequestSchema, (request) => options.elicit!(request));
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await client.connect(transport);
    return { client, transport };
  };
  try {
    return (await open()).client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(provider.code!);
  return (await open()).client;
}

let elicit: Elicit = async () => ({ action: 'cancel' });
let provider: TestOAuthProvider;
let client: Client;
const storeName = async () => (await svc.api('GET', '/v1/store', { token: owner })).data.name as string;
const used = async () => (await svc.api('GET', '/v1/store/subscription', { token: owner })).data.aiActions.used as number;
const hold = async (name: string) => {
  const held = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name } });
  assert.is(held.code, 'APPROVAL_REQUIRED');
  return held.value.approvalId as string;
};

test.before(async () => {
  svc = await startTestService();
  owner = await login(svc);
  provider = new TestOAuthProvider();
  client = await connect(provider, { elicit: (request) => elicit(request) });
});
test.after(async () => {
  await client?.close();
  await svc.close();
});

test('without a token /mcp answers 401 naming its RFC 9728 metadata, which leads to the authorization server and registration', async () => {
  const res = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.is(res.status, 401);
  const challenge = res.headers.get('www-authenticate')!;
  assert.ok(challenge.startsWith('Bearer '));
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1];
  assert.is(metadataUrl, `${svc.url}/.well-known/oauth-protected-resource/mcp`);
  const resource = await (await fetch(metadataUrl)).json();
  assert.is(resource.resource, `${svc.url}/mcp`);
  const as = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server/auth`)).json();
  assert.is(as.issuer, resource.authorization_servers[0]);
  assert.is(as.registration_endpoint, `${svc.url}/auth/register`);
  const refused = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
  assert.is(refused.status, 401);
  assert.match(refused.headers.get('www-authenticate')!, 'error="invalid_token"');
});

test('dynamic client registration (RFC 7591): public PKCE clients with safe redirect addresses', async () => {
  const register = (body: unknown) => fetch(`${svc.url}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ok = await register({ client_name: 'Cursor', redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback', 'http://127.0.0.1/callback'], token_endpoint_auth_method: 'client_secret_basic' });
  assert.is(ok.status, 201);
  const body = await ok.json();
  assert.match(body.client_id, /^mcpc_/);
  assert.is(body.token_endpoint_auth_method, 'none');
  for (const bad of [{}, { redirect_uris: [] }, { redirect_uris: ['http://evil.example/cb'] }, { redirect_uris: ['javascript:alert(1)'] }, { redirect_uris: ['https://a.example/cb#x'] }]) {
    const res = await register(bad);
    assert.is(res.status, 400);
    assert.is((await res.json()).error, 'invalid_redirect_uri');
  }
  const notJson = await fetch(`${svc.url}/auth/register`, { method: 'POST', body: 'x' });
  assert.equal([notJson.status, (await notJson.json()).error], [400, 'invalid_client_metadata']);
  // A registered loopback address takes any port (RFC 8252 §7.3); another path is refused on the consent page.
  const authorizeUrl = (redirect: string) => `${svc.url}/auth/authorize?${new URLSearchParams({ client_id: body.client_id, redirect_uri: redirect, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })}`;
  assert.is((await fetch(authorizeUrl('http://127.0.0.1:4567/callback'))).status, 200);
  assert.is((await fetch(authorizeUrl('http://127.0.0.1:4567/other'))).status, 400);
});

test('the OAuth flow by URL alone: the consent page names the client and its scopes; tools run as the agent, source MCP', async () => {
  assert.match(provider.consentPages[0], 'Test Agent Desktop');
  assert.match(provider.consentPages[0], 'product:rw');
  assert.match(provider.consentPages[0], '상점 범위');
  assert.match(provider.consentPages[0], 'AI 에이전트 연결');
  assert.ok(provider.saved?.refresh_token);
  const store = await callTool(client, 'call_api_read', { method: 'GET', path: '/v1/store' });
  assert.is(store.value.storeId, svc.storeId);
  const before = await used();
  const write = await callTool(client, 'call_api_write', { operationId: 'updateStore', body: { name: 'Remote Agent Name' } });
  assert.equal([write.isError, write.value.name], [false, 'Remote Agent Name']);
  assert.is(await used(), before + 1);
  const record = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { action: 'updateStore', limit: 1 } })).data.contents[0];
  assert.equal([record.actor.type, record.source], ['AGENT', 'MCP']);
});

test('decide_approval: an accepted form within 2 minutes decides as the person, via MCP_ELICITATION, not an AI action', async () => {
  await makeStoreWentPublic(svc, { token: await login(svc), storeId: svc.storeId });
  const approvalId = await hold('Approved In Chat');
  const before = await used();
  let asked: ElicitRequest | undefined;
  elicit = async (request) => {
    asked = request;
    return { action: 'accept', content: { decision: 'APPROVE' } };
  };
  const res = await callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
  assert.equal([res.isError, res.value.decided, res.value.outcome], [false, true, 'SUCCEEDED']);
  assert.ok(res.value.approvalUrl.endsWith(approvalId));
  const params = asked!.params as { message: string; requestedSchema: { properties: Record<string, { enum?: string[] }> } };
  assert.match(params.message, 'updateStore');
  assert.match(params.message, 'name: "Remote Agent Name" → "Approved In Chat"');
  assert.equal(params.requestedSchema.properties.decision.enum, ['APPROVE', 'REJECT']);
  assert.is(await storeName(), 'Approved In Chat');
  // The execution counts once; the person's decision does not.
  assert.is(await used(), before + 1);
  const decided = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { action: 'APPROVAL_DECIDED', limit: 1 } })).data.contents[0];
  assert.equal([decided.approvalId, decided.metadata.via, decided.actor.type, decided.source], [approvalId, 'MCP_ELICITATION', 'USER', 'MCP']);
  // Deciding it again: APPROVAL_NOT_PENDING, with no form shown.
  asked = undefined;
  const again = await callTool(client, 'decide_approval', { approvalId, decision: 'REJECT' });
  assert.equal([again.isError, again.status, again.value.code], [true, 409, 'APPROVAL_NOT_PENDING']);
  assert.is(asked, undefined);
});

test('a declined or cancelled form changes nothing; the person may still decide at approvalUrl', async () => {
  const approvalId = await hold('Declined Name');
  for (const action of ['decline', 'cancel'] as const) {
    elicit = async () => ({ action });
    const res = await callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
    assert.equal([res.isError, res.value.decided, res.value.outcome], [false, false, action === 'decline' ? 'DECLINED' : 'CANCELLED']);
    assert.ok(res.value.approvalUrl);
  }
  assert.is((await callTool(client, 'get_approval_request', { approvalId })).value.status, 'PENDING');
  // The form's own choice wins over the agent's suggestion: the person rejects.
  elicit = async () => ({ action: 'accept', content: { decision: 'REJECT', reason: '이름이 이상합니다' } });
  const rejected = await callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
  assert.equal([rejected.value.decided, rejected.value.outcome], [true, 'REJECTED']);
  assert.is.not(await storeName(), 'Declined Name');
  const decided = (await svc.api('GET', '/v1/audit-logs', { token: owner, query: { action: 'APPROVAL_DECIDED', limit: 1 } })).data.contents[0];
  assert.equal([decided.metadata.decision, decided.metadata.reason], ['REJECT', '이름이 이상합니다']);
});

test('an answer after the 2 minutes (manual clock) decides nothing', async () => {
  const approvalId = await hold('Too Late Name');
  elicit = async () => {
    await svc.advance(121);
    return { action: 'accept', content: { decision: 'APPROVE' } };
  };
  const res = await callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
  assert.equal([res.value.decided, res.value.outcome], [false, 'CONFIRMATION_EXPIRED']);
  assert.is((await callTool(client, 'get_approval_request', { approvalId })).value.status, 'PENDING');
});

test('no answer within the 2 minutes (manual clock): the tool says so and nothing changes', async () => {
  const approvalId = await hold('Never Answered');
  let asked!: () => void;
  const shown = new Promise<void>((ok) => (asked = ok));
  elicit = () => {
    asked();
    return new Promise(() => {});
  };
  const pending = callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
  await shown;
  await svc.advance(121);
  const res = await pending;
  assert.equal([res.value.decided, res.value.outcome], [false, 'NO_ANSWER']);
  assert.ok(res.value.approvalUrl);
  assert.is((await callTool(client, 'get_approval_request', { approvalId })).value.status, 'PENDING');
});

test('simultaneous decisions execute once', async () => {
  const approvalId = await hold('Once Only');
  const before = await used();
  elicit = async () => ({ action: 'accept', content: { decision: 'APPROVE' } });
  const answers = await Promise.all([1, 2].map(() => callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' })));
  const outcomes = answers.map((a) => (a.isError ? a.value.code : a.value.outcome)).sort();
  assert.equal(outcomes, ['APPROVAL_NOT_PENDING', 'SUCCEEDED']);
  assert.is(await used(), before + 1);
});

test('an approval past its 24 hours: APPROVAL_EXPIRED', async () => {
  const approvalId = await hold('Expired Name');
  await svc.advance(24 * 3600 + 60);
  // The 24 hours outlived the login's access token: the SDK client refreshes it (rotation) on the 401.
  const oldRefresh = provider.saved!.refresh_token;
  const res = await callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
  assert.equal([res.isError, res.status, res.value.code], [true, 409, 'APPROVAL_EXPIRED']);
  assert.is.not(provider.saved!.refresh_token, oldRefresh);
});

test('a client without forms gets approvalUrl only', async () => {
  const plain = await connect(new TestOAuthProvider());
  try {
    const approvalId = (await callTool(plain, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name: 'No Forms' } })).value.approvalId;
    const res = await callTool(plain, 'decide_approval', { approvalId, decision: 'APPROVE' });
    assert.equal([res.value.decided, res.value.outcome], [false, 'ELICITATION_UNSUPPORTED']);
    assert.ok(res.value.approvalUrl.endsWith(approvalId));
  } finally {
    await plain.close();
  }
});

test('disconnecting the client (revoking its refresh token) ends its login at once', async () => {
  const other = new TestOAuthProvider();
  const connected = await connect(other);
  const revoke = await fetch(`${svc.url}/auth/revoke`, { method: 'POST', body: new URLSearchParams({ token: other.saved!.refresh_token!, client_id: (other.client as { client_id: string }).client_id }) });
  assert.is(revoke.status, 200);
  const res = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${other.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate')!, 'TOKEN_REVOKED');
  await connected.close().catch(() => {});
});

test.run();
