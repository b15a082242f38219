import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiAnswer, ApiCall, ApiCaller } from './api-call.js';
import { decisionForStore, operationCatalog, type CatalogEntry } from './catalog.js';

export type { ApiAnswer, ApiCall, ApiCaller };

/** An approval request as the API shows it, the parts decide_approval reads. */
export interface ApprovalView {
  approvalId: string;
  status: string;
  approvalUrl: string;
  operationId: string;
  operationName: string;
  request: { method: string; path: string };
  target: { type: string; id: string | null } | null;
  requestedBy: { name: string };
}

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * A pending request put to the person in the conversation (remote MCP only): the client's form asks for the
 * one-time code the approval page showed them, and only that code decides.
 */
export type ConfirmDecision = (input: { approval: ApprovalView; decision: 'APPROVE' | 'REJECT'; storeId: string }, extra: ToolExtra) => Promise<CallToolResult>;

export interface McpServerOptions {
  callApi: ApiCaller;
  /** The store named by the connection (flag, variable, `?store=`); else the only store in the token's reach. */
  store?: string;
  /** Present on remote MCP, whose client may show forms; the local `svc mcp` only answers approvalUrl. */
  confirmDecision?: ConfirmDecision;
  version: string;
}

export const MCP_SERVER_NAME = 'svc';

/** An API answer as a tool result: `data` on success (202 APPROVAL_REQUIRED included), the `error` object as a tool error. */
export function toolResult(answer: ApiAnswer): CallToolResult {
  const envelope = answer.body as { meta?: { code?: string; isSuccess?: boolean }; data?: unknown; error?: { code?: string } | null } | null;
  if (envelope?.meta?.isSuccess)
    return { content: [{ type: 'text', text: JSON.stringify(envelope.data ?? null) }], _meta: meta(answer.status, envelope.meta.code ?? null) };
  const error = envelope?.error ?? { code: 'INVALID_RESPONSE', message: `not an API response (HTTP ${answer.status})` };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(error) }], _meta: meta(answer.status, error.code ?? null) };
}

/** `_meta` of every tool result: the API's HTTP status and `meta.code` (or error code), so clients can branch on codes. */
const meta = (status: number, code: string | null) => ({ status, code });

/** A tool error the MCP server itself answers (no API call was made), shaped like the API's error object. */
export function toolError(code: string, message: string, details: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ code, message, details }) }], _meta: meta(400, code) };
}

const target = {
  operationId: z.string().optional().describe('An operationId from list_operations (also app.<handle>.<tool>)'),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional().describe('With path, instead of operationId'),
  path: z.string().optional().describe('A path as list_operations shows it, e.g. /v1/products/{productId} (or already filled in)'),
  params: z.record(z.string(), z.string()).optional().describe('Path parameters, e.g. { "productId": "prd_…" }'),
  query: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
};

/**
 * The one MCP server definition of svc (spec 01 §5.6, spec 02 §4.1), for stdio and Streamable HTTP alike.
 * Tools: list_operations, call_api_read, call_api_write, list_approvals, get_approval_request, decide_approval.
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const { callApi } = options;
  const server = new McpServer(
    { name: MCP_SERVER_NAME, version: options.version },
    {
      instructions:
        'svc store administration. Find operations with list_operations, read with call_api_read, write with call_api_write ' +
        "(dryRun: true previews without changing anything). Some writes wait for a person's approval: they answer with approvalId and approvalUrl.",
    },
  );

  let store: Promise<string | ToolFailure> | undefined;
  /** The connection's store: named, or the only one the token reaches (asked once). */
  const storeOf = () =>
    (store ??= options.store
      ? Promise.resolve(options.store)
      : onlyStore(callApi).then((found) => {
          // A refusal (no store yet, a token being refreshed) is asked again next time.
          if (typeof found !== 'string') store = undefined;
          return found;
        }));
  let catalog: Promise<CatalogEntry[] | ToolFailure> | undefined;
  /** Registry operations change only with a new service version: read once per connection; app tools every time. */
  const registry = () =>
    (catalog ??= operationCatalog(callApi).catch((error: unknown) => {
      catalog = undefined;
      return { failure: toolError('OPERATIONS_UNAVAILABLE', String(error)) } satisfies ToolFailure;
    }));

  async function entries(): Promise<CatalogEntry[] | ToolFailure> {
    const ops = await registry();
    if ('failure' in ops) return ops;
    const storeId = await storeOf();
    if (typeof storeId !== 'string') return ops;
    const [tools, store] = await Promise.all([
      callApi({ method: 'GET', path: '/v1/apps/tools', storeId }),
      callApi({ method: 'GET', path: '/v1/store', storeId }),
    ]);
    // The decision this store would make now (a never-public store's exemption), not only the operation's policy.
    const exempt = store.status === 200 && store.body.data.agentApprovalExempt === true;
    const decided = ops.map((e) => ({ ...e, agentDecision: decisionForStore(e, exempt) }));
    return tools.status === 200 ? [...decided, ...appToolEntries(tools.body.data.contents)] : decided;
  }

  server.registerTool(
    'list_operations',
    {
      title: 'List API operations',
      description:
        "Operations of the svc administration API and installed apps' tools, with the agent decision (ALLOW, APPROVAL_REQUIRED, DENIED) and an input schema { params, query, body }.",
      inputSchema: {
        tag: z.string().optional().describe('Only this tag (e.g. Products, Orders, Apps)'),
        search: z.string().optional().describe('Words to find in operationId, path or summary'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ tag, search }) => {
      const all = await entries();
      if ('failure' in all) return all.failure;
      const words = (search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
      const found = all.filter(
        (e) => (!tag || e.tag.toLowerCase() === tag.toLowerCase()) && words.every((w) => `${e.operationId} ${e.path} ${e.summary}`.toLowerCase().includes(w)),
      );
      return {
        content: [{ type: 'text', text: JSON.stringify(found.map(({ tag: _tag, auth: _auth, exemptWhilePrivate: _exempt, ...e }) => e)) }],
        _meta: meta(200, 'OK'),
      };
    },
  );

  async function call(kind: 'read' | 'write', input: z.infer<z.ZodObject<typeof target>> & { body?: unknown; idempotencyKey?: string; dryRun?: boolean }) {
    // App tools are looked up only when one is named: a plain read costs one API call, not two.
    const all = input.operationId?.startsWith('app.') ? await entries() : await registry();
    if ('failure' in all) return all.failure;
    const resolved = resolveCall(all, input);
    if ('failure' in resolved) return resolved.failure;
    if (kind === 'read' ? resolved.method !== 'GET' : resolved.method === 'GET') {
      return toolError('WRONG_TOOL', kind === 'read' ? `${resolved.method} is a write: use call_api_write` : 'GET is a read: use call_api_read', {
        method: resolved.method,
        path: resolved.template,
      });
    }
    let storeId: string | undefined;
    if (resolved.auth === 'store') {
      const s = await storeOf();
      if (typeof s !== 'string') return s.failure;
      storeId = s;
    }
    const query = Object.fromEntries(Object.entries(input.query ?? {}).map(([k, v]) => [k, String(v)]));
    return toolResult(
      await callApi({
        method: resolved.method,
        path: resolved.path,
        query,
        body: input.body,
        storeId,
        idempotencyKey: input.idempotencyKey,
        dryRun: input.dryRun,
      }),
    );
  }

  server.registerTool(
    'call_api_read',
    {
      title: 'Read from the API',
      description: "A GET operation of the svc API, by operationId or method and path. Returns the answer's data, or the API error.",
      inputSchema: target,
      annotations: { readOnlyHint: true },
    },
    (input) => call('read', input),
  );

  server.registerTool(
    'call_api_write',
    {
      title: 'Write through the API',
      description:
        'A POST, PUT, PATCH or DELETE operation of the svc API (or an app tool, app.<handle>.<tool>, with body { input }). ' +
        'dryRun: true previews the changes and the agent decision without running anything. A write that needs approval answers with approvalId and approvalUrl.',
      inputSchema: {
        ...target,
        body: z.unknown().optional().describe('The JSON request body'),
        idempotencyKey: z.string().min(1).optional().describe('A retry with the same key returns the first answer (or the same approval request)'),
        dryRun: z.boolean().optional(),
      },
      annotations: { destructiveHint: true },
    },
    (input) => call('write', input),
  );

  server.registerTool(
    'list_approvals',
    {
      title: 'List approval requests',
      description: 'Approval requests of AI agents in the store, newest first (default: PENDING).',
      inputSchema: { status: z.enum(['PENDING', 'EXECUTING', 'SUCCEEDED', 'FAILED', 'UNKNOWN', 'REJECTED', 'EXPIRED']).optional() },
      annotations: { readOnlyHint: true },
    },
    async ({ status }) => {
      const storeId = await storeOf();
      if (typeof storeId !== 'string') return storeId.failure;
      return toolResult(await callApi({ method: 'GET', path: '/v1/approval-requests', query: status ? { status } : {}, storeId }));
    },
  );

  server.registerTool(
    'get_approval_request',
    {
      title: 'Read an approval request',
      description: 'One approval request: status, operation, and the result once it ran.',
      inputSchema: { approvalId: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    async ({ approvalId }) => {
      const storeId = await storeOf();
      if (typeof storeId !== 'string') return storeId.failure;
      return toolResult(await callApi({ method: 'GET', path: `/v1/approval-requests/${encodeURIComponent(approvalId)}`, storeId }));
    },
  );

  server.registerTool(
    'decide_approval',
    {
      title: 'Ask a person to approve or reject an approval request',
      description:
        'An agent never decides: a person (OWNER or ADMIN of the store) does, logged in with their own store-platform account at ' +
        'approvalUrl, the approval page. Where this client shows forms (remote MCP), the person may instead take a one-time code on that ' +
        'page ("confirm in the AI conversation") and type it into the form this tool shows, within 2 minutes; only that code decides. ' +
        'Show approvalUrl to the person, then follow the request with get_approval_request.',
      inputSchema: { approvalId: z.string().min(1), decision: z.enum(['APPROVE', 'REJECT']).describe('What the agent suggests; the person decides') },
    },
    async ({ approvalId, decision }, extra) => {
      const storeId = await storeOf();
      if (typeof storeId !== 'string') return storeId.failure;
      const path = `/v1/approval-requests/${encodeURIComponent(approvalId)}`;
      const read = await callApi({ method: 'GET', path, storeId });
      if (read.status !== 200) return toolResult(read);
      // Sent as the agent's own call: the API refuses it (spec 01 §5.6), and its audit record shows the agent tried.
      const attempt = await callApi({ method: 'POST', path: `${path}/${decision === 'APPROVE' ? 'approve' : 'reject'}`, storeId });
      if (attempt.body?.error?.code !== 'AGENT_OPERATION_DENIED') return toolResult(attempt);
      const approval = read.body.data as ApprovalView;
      if (approval.status !== 'PENDING') return undecided(approval, approval.status, `Nothing to decide: the request is ${approval.status}.`);
      if (options.confirmDecision) return options.confirmDecision({ approval, decision, storeId }, extra);
      return undecided(
        approval,
        'HUMAN_CONFIRMATION_REQUIRED',
        'An agent cannot decide: a person (OWNER or ADMIN) approves or rejects at approvalUrl, logged in with their own account.',
      );
    },
  );

  return server;
}

/** decide_approval's answer when nothing was decided: the request as it is, and where a person decides. */
export function undecided(approval: ApprovalView, outcome: string, message: string): CallToolResult {
  const data = { decided: false, outcome, message, approvalUrl: approval.approvalUrl, approval };
  return { content: [{ type: 'text', text: JSON.stringify(data) }], _meta: meta(200, outcome) };
}

/** decide_approval's answer when the person's code decided: the request as it now is. */
export function decided(approval: ApprovalView): CallToolResult {
  const data = { decided: true, outcome: approval.status, approvalUrl: approval.approvalUrl, approval };
  return { content: [{ type: 'text', text: JSON.stringify(data) }], _meta: meta(200, 'OK') };
}

interface ToolFailure {
  failure: CallToolResult;
}

async function onlyStore(callApi: ApiCaller): Promise<string | ToolFailure> {
  const answer = await callApi({ method: 'GET', path: '/v1/me/stores' });
  const hint = 'name the store: svc mcp --store CODE (or SVC_STORE_ID), or ?store=CODE on the MCP URL';
  // A token without stores:read cannot list its stores: it must be told which one.
  if (answer.status !== 200)
    return {
      failure: toolError('STORE_ID_REQUIRED', `the token's stores cannot be listed (${answer.body?.error?.code ?? answer.status}): ${hint}`, {
        cause: answer.body?.error ?? null,
      }),
    };
  const codes = (answer.body.data.contents as { code: string }[]).map((s) => s.code);
  if (codes.length === 1) return codes[0];
  return {
    failure: toolError(
      'STORE_ID_REQUIRED',
      codes.length === 0 ? 'this token reaches no store' : `the token reaches several stores (${codes.join(', ')}): ${hint}`,
    ),
  };
}

type ToolField = { type: string; description?: string; required?: boolean };

/** An app tool's declared input fields (manifest `mcp.tools.*.input`) as the JSON Schema of `{ input }`. */
function toolInputSchema(fields: Record<string, ToolField>) {
  return {
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(fields).map(([name, f]) => [name, { type: f.type, ...(f.description ? { description: f.description } : {}) }]),
    ),
    required: Object.entries(fields)
      .filter(([, f]) => f.required)
      .map(([name]) => name),
  };
}

function appToolEntries(
  tools: { installationId: string; name: string; description?: string; input?: Record<string, ToolField>; app: { handle: string } }[],
): CatalogEntry[] {
  return tools.map((t) => ({
    operationId: `app.${t.app.handle}.${t.name}`,
    method: 'POST',
    path: `/v1/apps/installations/${t.installationId}/tools/${t.name}`,
    summary: t.description ?? `${t.app.handle} app tool ${t.name}`,
    agentDecision: 'ALLOW',
    exemptWhilePrivate: false,
    inputSchema: {
      type: 'object',
      properties: { body: { type: 'object', properties: { input: toolInputSchema(t.input ?? {}) }, required: ['input'] } },
      required: ['body'],
    },
    tag: 'Apps',
    auth: 'store',
  }));
}

type ResolvedCall = { method: string; path: string; template: string; auth: CatalogEntry['auth'] } | ToolFailure;

/** operationId, or method and path (a template or a filled-in path), to the concrete request. */
function resolveCall(entries: CatalogEntry[], input: { operationId?: string; method?: string; path?: string; params?: Record<string, string> }): ResolvedCall {
  let entry: CatalogEntry | undefined;
  if (input.operationId) {
    entry = entries.find((e) => e.operationId === input.operationId);
    if (!entry) return { failure: toolError('OPERATION_NOT_FOUND', `no operation ${input.operationId} (list_operations)`, { operationId: input.operationId }) };
  } else if (input.method && input.path) {
    const path = input.path.split('?')[0].replace(/\/$/, '') || '/';
    entry = entries.find((e) => e.method === input.method && (e.path === path || templatePattern(e.path).test(path)));
    if (!entry) return { failure: toolError('OPERATION_NOT_FOUND', `no operation ${input.method} ${path} (list_operations)`, { method: input.method, path }) };
    if (entry.path !== path) return { method: entry.method, path, template: entry.path, auth: entry.auth };
  } else {
    return { failure: toolError('VALIDATION_FAILED', 'name the operation: operationId, or method and path') };
  }
  const missing: string[] = [];
  const path = entry.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = input.params?.[name];
    if (value === undefined) missing.push(name);
    return encodeURIComponent(value ?? '');
  });
  if (missing.length) return { failure: toolError('VALIDATION_FAILED', `path parameters missing: ${missing.join(', ')}`, { missing }) };
  return { method: entry.method, path, template: entry.path, auth: entry.auth };
}

const templatePattern = (template: string) => new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`);
