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
import { SEED_EMAIL, SEED_PASSWORD } from '../../src/server/seed.js';
import { approvalPage } from '../helpers/approvals.js';
import { apiClient, createAccessToken, login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

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
    return {
      client_name: 'Test Agent Desktop',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
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

/** The agent's own client: it answers every form at once, accepting, with a guess for each field. */
const autoAccept: Elicit = async (request) => {
  const fields = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
  return { action: 'accept', content: Object.fromEntries(fields.map((f) => [f, 'A2B3C4D5'])) };
};
let elicit: Elicit = autoAccept;
/** The form's answer is `code`, typed as a person would. */
const typing =
  (code: string): Elicit =>
  async () => ({ action: 'accept', content: { code } });
let provider: TestOAuthProvider;
let client: Client;
const storeName = async () => (await svc.api('GET', '/v1/store', { token: owner })).data.name as string;
const used = async () => (await svc.api('GET', '/v1/store/subscription', { token: owner })).data.aiActions.used as number;
const status = async (approvalId: string) => (await svc.api('GET', `/v1/approval-requests/${approvalId}`, { token: owner })).data.status as string;
const audit = async (query: Record<string, string>) => (await svc.api('GET', '/v1/audit-logs', { token: owner, query })).data.contents as any[];
const hold = async (name: string) => {
  const held = await callTool(client, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name } });
  assert.is(held.code, 'APPROVAL_REQUIRED');
  return held.value.approvalId as string;
};
/** The seeded owner, logged in on the request's approval page with their own password. */
const ownerOnPage = (approvalId: string) => approvalPage(`${svc.url}/approvals/${approvalId}`, { email: SEED_EMAIL, password: SEED_PASSWORD });
const decide = (approvalId: string, decision: 'APPROVE' | 'REJECT' = 'APPROVE') => callTool(client, 'decide_approval', { approvalId, decision });

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
  const res = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  });
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
  const register = (body: unknown) =>
    fetch(`${svc.url}/auth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ok = await register({
    client_name: 'Cursor',
    redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback', 'http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  assert.is(ok.status, 201);
  const body = await ok.json();
  assert.match(body.client_id, /^mcpc_/);
  assert.is(body.token_endpoint_auth_method, 'none');
  for (const bad of [
    {},
    { redirect_uris: [] },
    { redirect_uris: ['http://evil.example/cb'] },
    { redirect_uris: ['javascript:alert(1)'] },
    { redirect_uris: ['https://a.example/cb#x'] },
  ]) {
    const res = await register(bad);
    assert.is(res.status, 400);
    assert.is((await res.json()).error, 'invalid_redirect_uri');
  }
  const notJson = await fetch(`${svc.url}/auth/register`, { method: 'POST', body: 'x' });
  assert.equal([notJson.status, (await notJson.json()).error], [400, 'invalid_client_metadata']);
  // A registered loopback address takes any port (RFC 8252 §7.3); another path is refused on the consent page.
  const authorizeUrl = (redirect: string) =>
    `${svc.url}/auth/authorize?${new URLSearchParams({ client_id: body.client_id, redirect_uri: redirect, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })}`;
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

test("an agent cannot approve its own held request: its client accepts every form with guessed codes, nothing changes; guesses spend a person's code", async () => {
  await makeStoreWentPublic(svc, { token: await login(svc), storeId: svc.storeId });
  const approvalId = await hold('Self Approved');
  const nameBefore = await storeName();
  const before = await used();
  let asked: ElicitRequest | undefined;
  elicit = async (request) => {
    asked = request;
    return autoAccept(request);
  };
  const res = await decide(approvalId);
  assert.equal([res.isError, res.value.decided, res.value.outcome, res.code], [false, false, 'CODE_INVALID', 'CODE_INVALID']);
  assert.is(res.value.approvalUrl, `${svc.url}/approvals/${approvalId}`);
  // The form asks for the page's code only: nothing the agent's client could answer from the conversation.
  const params = asked!.params as { message: string; requestedSchema: { properties: Record<string, unknown> } };
  assert.equal(Object.keys(params.requestedSchema.properties), ['code']);
  assert.match(params.message, res.value.approvalUrl);
  assert.equal([(await decide(approvalId, 'REJECT')).value.outcome], ['CODE_INVALID']);
  assert.is(await status(approvalId), 'PENDING');
  assert.is(await storeName(), nameBefore, 'the held write did not run');
  assert.is(await used(), before);

  // The audit shows each attempt as the agent's, refused — never as a decision.
  const [approveTry] = await audit({ action: 'approveApprovalRequest', limit: '1' });
  const [rejectTry] = await audit({ action: 'rejectApprovalRequest', limit: '1' });
  for (const attempt of [approveTry, rejectTry]) {
    assert.equal(
      [attempt.actor.type, attempt.source, attempt.outcome.statusCode, attempt.outcome.result, attempt.outcome.errorCode],
      ['AGENT', 'MCP', 403, 'DENIED', 'AGENT_OPERATION_DENIED'],
    );
  }
  assert.equal(await audit({ action: 'APPROVAL_DECIDED', approvalId }), []);

  // The agent's own login token, sent straight to the approval API, is refused the same way.
  const direct = await svc.api('POST', `/v1/approval-requests/${approvalId}/approve`, { token: provider.saved!.access_token });
  assert.equal([direct.status, direct.body.error.code], [403, 'AGENT_OPERATION_DENIED']);

  // While a person's code lives, five wrong answers for the request use it up: guessing is bounded.
  const code = await (await ownerOnPage(approvalId)).code('APPROVE');
  elicit = autoAccept;
  for (let i = 0; i < 5; i++) assert.is((await decide(approvalId)).value.outcome, 'CODE_INVALID');
  elicit = typing(code);
  assert.is((await decide(approvalId)).value.outcome, 'CODE_INVALID');
  assert.is(await status(approvalId), 'PENDING');
});

test('a person takes a code on the approval page and types it into the form: decided as that person, via MCP_ELICITATION, not an AI action', async () => {
  const approvalId = await hold('Approved In Chat');
  const before = await used();
  const stranger = await newSellerWithStore(svc, 'bystander');
  let bystander = 0;
  elicit = async (request) => {
    // The person follows the form's message: opens the page it names, logs in there, takes the code.
    const url = /(http\S+\/approvals\/\S+)/.exec((request.params as { message: string }).message)![1];
    const code = await (await approvalPage(url, { email: SEED_EMAIL, password: SEED_PASSWORD })).code('APPROVE');
    // Another store's requests keep answering while the form is open.
    bystander = (await stranger.api('GET', '/v1/store')).status;
    return { action: 'accept', content: { code } };
  };
  const res = await decide(approvalId);
  assert.equal([res.isError, res.value.decided, res.value.outcome], [false, true, 'SUCCEEDED']);
  assert.is(bystander, 200);
  assert.is(await storeName(), 'Approved In Chat');
  // The execution counts once; the person's decision does not.
  assert.is(await used(), before + 1);
  const me = (await svc.api('GET', '/auth/v1/me', { token: owner })).data;
  assert.is((await callTool(client, 'get_approval_request', { approvalId })).value.decidedBy, me.userId);
  const [decided] = await audit({ action: 'APPROVAL_DECIDED', approvalId });
  assert.equal(
    [decided.actor.type, decided.actor.id, decided.source, decided.metadata.via, decided.metadata.decision],
    ['USER', me.userId, 'MCP', 'MCP_ELICITATION', 'APPROVE'],
  );
  const [execution] = await audit({ action: 'updateStore', approvalId });
  assert.equal([execution.actor.type, execution.metadata.approvedBy], ['AGENT', me.userId]);

  // Decided, the tool says so at once, without a form.
  elicit = async () => assert.unreachable('no form for a decided request');
  assert.equal([(await decide(approvalId, 'REJECT')).value.outcome], ['SUCCEEDED']);
});

test("the code carries the person's choice: they reject what the agent suggested approving", async () => {
  const approvalId = await hold('Rejected In Chat');
  elicit = typing(await (await ownerOnPage(approvalId)).code('REJECT'));
  const res = await decide(approvalId, 'APPROVE');
  assert.equal([res.value.decided, res.value.outcome], [true, 'REJECTED']);
  assert.is.not(await storeName(), 'Rejected In Chat');
  const [decided] = await audit({ action: 'APPROVAL_DECIDED', approvalId });
  assert.equal([decided.metadata.via, decided.metadata.decision], ['MCP_ELICITATION', 'REJECT']);
});

test("a code used twice, another request's code, an expired code, a code of another store's person: refused, nothing changes", async () => {
  // Used twice, even at once: one answer decides, the other finds the code gone; the request runs once.
  const twice = await hold('Used Twice');
  const before = await used();
  elicit = typing(await (await ownerOnPage(twice)).code('APPROVE'));
  const answers = await Promise.all([decide(twice), decide(twice)]);
  assert.equal(answers.map((a) => a.value.outcome).sort(), ['CODE_INVALID', 'SUCCEEDED']);
  assert.is(await used(), before + 1);

  // Another request's code fits only that request, and a wrong answer elsewhere leaves it usable.
  const other = await hold('Other Request');
  const mine = await hold('Code Owner');
  const mineCode = await (await ownerOnPage(mine)).code('REJECT');
  elicit = typing(mineCode);
  assert.equal([(await decide(other)).value.outcome, await status(other)], ['CODE_INVALID', 'PENDING']);
  assert.equal([(await decide(mine)).value.outcome, await status(mine)], ['REJECTED', 'REJECTED']);

  // A code older than its 2 minutes (the manual clock moved past them).
  const late = await hold('Too Late');
  elicit = typing(await (await ownerOnPage(late)).code('APPROVE'));
  await svc.advance(121);
  assert.equal([(await decide(late)).value.outcome, await status(late)], ['CONFIRMATION_EXPIRED', 'PENDING']);

  // A person of another store takes a code for their own store's request: it decides nothing here.
  const stranger = await newSellerWithStore(svc, 'stranger');
  await makeStoreWentPublic(svc, { token: stranger.token, storeId: stranger.storeId });
  const strangerAgent = apiClient(svc.url, {
    token: await createAccessToken(svc, stranger.token, { scopes: ['store:rw'], agent: true }),
    storeId: stranger.storeId,
  });
  const theirs = (await strangerAgent('PATCH', '/v1/store', { body: { name: 'Their Store' } })).data as { approvalId: string; approvalUrl: string };
  const theirCode = await (await approvalPage(theirs.approvalUrl, stranger)).code('APPROVE');
  const target = await hold('Stranger Code');
  elicit = typing(theirCode);
  assert.equal([(await decide(target)).value.outcome, await status(target)], ['CODE_INVALID', 'PENDING']);
  assert.is((await svc.api('GET', `/v1/approval-requests/${theirs.approvalId}`, { token: stranger.token, storeId: stranger.storeId })).data.status, 'PENDING');
  assert.equal(await audit({ action: 'APPROVAL_DECIDED', approvalId: target }), []);
});

test('a declined or closed form, or none answered within the 2 minutes (manual clock), changes nothing', async () => {
  const approvalId = await hold('Not Confirmed');
  for (const action of ['decline', 'cancel'] as const) {
    elicit = async () => ({ action });
    const res = await decide(approvalId);
    assert.equal([res.value.decided, res.value.outcome], [false, action === 'decline' ? 'DECLINED' : 'CANCELLED']);
    assert.ok(res.value.approvalUrl);
  }
  let shown!: () => void;
  const asked = new Promise<void>((ok) => (shown = ok));
  elicit = () => {
    shown();
    return new Promise(() => {});
  };
  const pending = decide(approvalId);
  await asked;
  await svc.advance(121);
  assert.equal([(await pending).value.decided, (await pending).value.outcome], [false, 'NO_ANSWER']);
  assert.is(await status(approvalId), 'PENDING');
});

test('an approval past its 24 hours reads EXPIRED; the tool decides nothing', async () => {
  const approvalId = await hold('Expired Name');
  await svc.advance(24 * 3600 + 60);
  // The 24 hours outlived the login's access token: the SDK client refreshes it (rotation) on the 401.
  const oldRefresh = provider.saved!.refresh_token;
  const res = await callTool(client, 'decide_approval', { approvalId, decision: 'APPROVE' });
  assert.equal([res.isError, res.value.decided, res.value.outcome], [false, false, 'EXPIRED']);
  assert.is.not(provider.saved!.refresh_token, oldRefresh);
});

test('a client without forms gets the same answer: approvalUrl', async () => {
  const plain = await connect(new TestOAuthProvider());
  try {
    const approvalId = (await callTool(plain, 'call_api_write', { method: 'PATCH', path: '/v1/store', body: { name: 'No Forms' } })).value.approvalId;
    const res = await callTool(plain, 'decide_approval', { approvalId, decision: 'APPROVE' });
    assert.equal([res.value.decided, res.value.outcome], [false, 'HUMAN_CONFIRMATION_REQUIRED']);
    assert.ok(res.value.approvalUrl.endsWith(approvalId));
  } finally {
    await plain.close();
  }
});

test('disconnecting the client (revoking its refresh token) ends its login at once', async () => {
  const other = new TestOAuthProvider();
  const connected = await connect(other);
  const revoke = await fetch(`${svc.url}/auth/revoke`, {
    method: 'POST',
    body: new URLSearchParams({ token: other.saved!.refresh_token!, client_id: (other.client as { client_id: string }).client_id }),
  });
  assert.is(revoke.status, 200);
  const res = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${other.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{}',
  });
  assert.is(res.status, 401);
  assert.match(res.headers.get('www-authenticate')!, 'TOKEN_REVOKED');
  await connected.close().catch(() => {});
});

test.run();
