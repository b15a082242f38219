import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { H3, H3Event } from 'h3';
import { packageRoot } from '../../paths.js';
import { errorOutgoing, newTraceId, toApiError } from '../../server/envelope.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Module } from '../../server/module.js';
import type { Services } from '../../server/services.js';
import type { ApiCaller } from '../../mcp-server/server.js';
import { protectedResourceMetadataUrl, type Principal } from '../../kernel/identity.js';
import { authenticate } from '../accounts/index.js';
import { AGENT_HEADER } from '../../mcp-server/headers.js';

export const MCP_PATH = '/mcp';
const version = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
/** Sessions idle this long are dropped (the client starts a new one: MCP clients re-initialize on 404). */
const SESSION_IDLE_MS = 60 * 60_000;
/** Sessions one account holds at most: its next one closes its own least recently used, never another's. */
export const SESSIONS_PER_ACCOUNT = 20;
/** Sessions of all accounts together: past it a new one is refused (429) rather than closing others'. */
const SESSION_LIMIT = 1000;

defineMessages({ MCP_SESSION_LIMIT: 'MCP 세션이 너무 많습니다. 쓰지 않는 연결을 닫거나 잠시 후 다시 시도하세요.' });

/** One remote MCP connection: its transport and server, the login it belongs to, and the latest request's token. */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  tokenId: string;
  userId: string;
  authorization: string;
  /** The latest request: a decision made with a person's code in this session happens within it. */
  event: H3Event;
  lastSeen: number;
}

/**
 * Remote MCP over Streamable HTTP at `/mcp` (spec 01 §5.1, §5.6), protected by the account server: a
 * request without a valid token gets 401 with the RFC 9728 `resource_metadata` address, from which an MCP
 * client finds the authorization server, registers itself (RFC 7591) and logs the person in with PKCE.
 * Tool calls go through the service's own router in process, marked as an agent's (source MCP).
 */
function mountMcp(app: H3, services: Services) {
  const sessions = new Map<string, Session>();
  const metadata = protectedResourceMetadataUrl(services.config.origin, MCP_PATH);
  const docs = `${services.config.origin}/docs/errors`;

  const refuse = (error: unknown, tokenPresented: boolean) => {
    const traceId = newTraceId();
    const err = toApiError(error, traceId);
    const out = errorOutgoing(err, traceId, docs);
    const challenge = [
      `realm="svc"`,
      ...(tokenPresented ? ['error="invalid_token"', `error_description="${err.code}"`] : []),
      `resource_metadata="${metadata}"`,
    ];
    return new Response(out.body, {
      status: out.status,
      headers: { 'content-type': 'application/json; charset=utf-8', ...(err.status === 401 ? { 'www-authenticate': `Bearer ${challenge.join(', ')}` } : {}) },
    });
  };

  app.all(MCP_PATH, async (event) => {
    const authorization = event.req.headers.get('authorization');
    let principal: Principal;
    try {
      principal = await authenticate(services, authorization);
    } catch (error) {
      return refuse(error, authorization !== null);
    }
    const now = Date.now();
    const sessionId = event.req.headers.get('mcp-session-id');
    let session = sessionId ? sessions.get(sessionId) : undefined;
    // A session belongs to the login (or token) that opened it; another one's id is as good as unknown.
    if (sessionId && (!session || session.tokenId !== principal.tokenId)) {
      return Response.json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }, { status: 404 });
    }
    if (!session) {
      try {
        makeRoom(sessions, principal.userId, now);
      } catch (error) {
        return refuse(error, true);
      }
      session = await openSession(app, services, sessions, principal, event);
    }
    session.authorization = authorization!;
    session.event = event;
    session.lastSeen = now;
    return session.transport.handleRequest(event.req as Request, {
      authInfo: {
        token: authorization!.slice(7).trim(),
        clientId: principal.clientId ?? 'access-token',
        scopes: principal.scopes ? [...principal.scopes] : [],
      },
    });
  });
}

async function openSession(app: H3, services: Services, sessions: Map<string, Session>, principal: Principal, event: H3Event): Promise<Session> {
  // The MCP SDK loads with the first session, not with every service start (~75 ms).
  const [{ WebStandardStreamableHTTPServerTransport }, { createMcpServer }, { confirmByCode }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('../../mcp-server/server.js'),
    import('./elicitation.js'),
  ]);
  // Every call uses the token of the request being served: a refreshed login keeps its session going.
  const callApi: ApiCaller = async (call) => {
    const url = new URL(call.path, services.config.origin);
    for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { authorization: session.authorization, accept: 'application/json', [AGENT_HEADER]: 'mcp' };
    if (call.storeId) headers['x-store-id'] = call.storeId;
    if (call.idempotencyKey) headers['idempotency-key'] = call.idempotencyKey;
    if (call.dryRun) headers['x-svc-dry-run'] = '1';
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const response = await app.fetch(new Request(url, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) }));
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: null };
    }
  };
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.set(id, session);
    },
    onsessionclosed: (id) => {
      sessions.delete(id);
    },
  });
  const server = createMcpServer({
    callApi,
    version,
    store: event.url.searchParams.get('store') ?? event.req.headers.get('x-store-id') ?? undefined,
    confirmDecision: (input, extra) =>
      confirmByCode(services, server.server, input, { principalOf: () => authenticate(services, session.authorization), event: () => session.event }, extra),
  });
  const session: Session = { transport, tokenId: principal.tokenId, userId: principal.userId, authorization: '', event, lastSeen: Date.now() };
  await server.connect(transport);
  return session;
}

/**
 * Room for one more session of `userId`: idle sessions go; an account at its own limit loses its least
 * recently used one; a service at its limit refuses the newcomer (one account's many sessions never close
 * another's).
 */
function makeRoom(sessions: Map<string, Session>, userId: string, now: number) {
  const close = (id: string, s: Session) => {
    sessions.delete(id);
    void s.transport.close();
  };
  const own: [string, Session][] = [];
  for (const [id, s] of sessions) {
    if (s.lastSeen < now - SESSION_IDLE_MS) close(id, s);
    else if (s.userId === userId) own.push([id, s]);
  }
  if (own.length >= SESSIONS_PER_ACCOUNT) {
    const [id, s] = own.reduce((oldest, entry) => (entry[1].lastSeen < oldest[1].lastSeen ? entry : oldest));
    close(id, s);
  } else if (sessions.size >= SESSION_LIMIT) {
    throw fail(429, 'MCP_SESSION_LIMIT', { limit: SESSION_LIMIT });
  }
}

export const mcpModule: Module = {
  name: 'mcp',
  mount: mountMcp,
};
