/**
 * Remote MCP sessions are limited per account (outside security run): an account that opens more than its
 * share closes only its own least recently used session; another account's sessions go on working. A full
 * service refuses newcomers instead of closing anyone's session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SESSIONS_PER_ACCOUNT } from '../../src/modules/mcp/index.js';
import { login, newSellerWithStore, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
const clients: Client[] = [];
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await svc.close();
});

/** An MCP client connected (initialized) with the token: one session of its account. */
async function open(token: string) {
  const client = new Client({ name: 'svc-test-sessions', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

/** Whether the session still answers (a closed one is 404 `Session not found`). */
const answers = (client: Client) =>
  client.listTools().then(
    () => true,
    () => false,
  );

test("an account past its session limit closes only its own oldest session; another account's keeps working", async () => {
  const b = await open(await login(svc));
  assert.ok(await answers(b));

  const seller = await newSellerWithStore(svc, 'mcp-many');
  const first = await open(seller.token);
  const rest: Client[] = [];
  for (let i = 0; i < SESSIONS_PER_ACCOUNT; i++) rest.push(await open(seller.token));

  assert.ok(await answers(b), "the other account's session survives");
  assert.not.ok(await answers(first), "the account's own least recently used session was closed");
  assert.ok(await answers(rest[0]));
  assert.ok(await answers(rest.at(-1)!));
  assert.ok(await answers(await open(await login(svc))), 'the other account may still open sessions');
});

/** A raw `initialize` (no client kept): the session id, or the refusal's status and envelope. */
async function initialize(token: string) {
  const res = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'svc-test-fill', version: '1.0.0' } },
    }),
  });
  const text = await res.text();
  return { status: res.status, sessionId: res.headers.get('mcp-session-id'), body: res.status === 200 ? null : JSON.parse(text) };
}

test("when the whole service is full a new session is refused (429 MCP_SESSION_LIMIT); nobody's session is closed for it", async () => {
  const kept = await open(await login(svc));
  let refused: Awaited<ReturnType<typeof initialize>> | undefined;
  let firstFiller: string | undefined;
  // Accounts each at their own limit until the service's limit is reached (about 50 of them).
  for (let n = 0; n < 60 && !refused; n++) {
    const { token } = await newSellerWithStore(svc, `mcp-fill-${n}`);
    for (let i = 0; i < SESSIONS_PER_ACCOUNT && !refused; i++) {
      const answer = await initialize(token);
      if (answer.status === 200) firstFiller ??= token;
      else refused = answer;
    }
  }
  assert.ok(refused, 'the service has a limit');
  assert.equal([refused.status, refused.body.error.code], [429, 'MCP_SESSION_LIMIT']);
  assert.ok(await answers(kept), 'sessions opened before stay open');
  const another = await newSellerWithStore(svc, 'mcp-late');
  assert.is((await initialize(another.token)).status, 429, "a newcomer is refused, not given someone else's place");
  // An account at its own limit may still replace its own least recently used session.
  assert.is((await initialize(firstFiller!)).status, 200);
});

test.run();
