import type { ApiCaller } from './api-call.js';

/** One entry of `list_operations`. */
export interface CatalogEntry {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  agentDecision: 'ALLOW' | 'APPROVAL_REQUIRED' | 'DENIED';
  /** Approval is skipped while the store never went public nor took a live payment (spec 01 §5.6). */
  exemptWhilePrivate: boolean;
  /** JSON Schema of the call's `{ params, query, body }`. */
  inputSchema: Record<string, unknown>;
  tag: string;
  auth: 'account' | 'store';
}

type Json = Record<string, any>;

/**
 * The administration API's operations from the service's own OpenAPI document — generated from the
 * operation registry, so this list cannot drift from the routes, and a remote service lists its own
 * version's operations even when the local CLI is older or newer.
 */
export async function operationCatalog(callApi: ApiCaller): Promise<CatalogEntry[]> {
  const answer = await callApi({ method: 'GET', path: '/v1/openapi.json' });
  if (answer.status !== 200 || !answer.body?.paths) throw new Error(`the OpenAPI document could not be read (HTTP ${answer.status})`);
  const doc = answer.body as Json;
  const schemas = (doc.components?.schemas ?? {}) as Json;
  const storeSchemes = Object.entries((doc.components?.securitySchemes ?? {}) as Json)
    .filter(([, scheme]) => scheme.type === 'apiKey' && scheme.in === 'header' && String(scheme.name).toLowerCase() === 'x-store-id')
    .map(([name]) => name);
  const entries: CatalogEntry[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Json)) {
    if (!path.startsWith('/v1/')) continue;
    for (const [method, op] of Object.entries(methods as Json)) {
      const stored = needsStore(op, storeSchemes);
      // Public documents (the OpenAPI document, plans) need no agent tooling; buyer API paths are not under /v1.
      if ((op.security ?? []).length === 0) continue;
      entries.push({
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        agentDecision: agentDecision(method, op['x-svc-agent-policy']),
        exemptWhilePrivate: op['x-svc-agent-approval-exempt-while-private'] === true,
        inputSchema: inputSchema(op, schemas),
        tag: op.tags?.[0] ?? '',
        auth: stored ? 'store' : 'account',
      });
    }
  }
  return entries;
}

/**
 * Whether an operation acts in a store: its security asks for the X-Store-Id scheme, or (a service older than
 * that scheme) it lists X-Store-Id as a header parameter.
 */
function needsStore(op: Json, storeSchemes: string[]): boolean {
  if ((op.security ?? []).some((requirement: Json) => storeSchemes.some((name) => name in requirement))) return true;
  return (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'X-Store-Id');
}

/** Reads never need approval; a policy that depends on the request is shown as the stricter outcome (a dry run tells). */
function agentDecision(method: string, policy: string | undefined): CatalogEntry['agentDecision'] {
  if (method === 'get') return 'ALLOW';
  if (policy === 'denied') return 'DENIED';
  if (policy === 'approval' || policy === 'depends-on-request') return 'APPROVAL_REQUIRED';
  return 'ALLOW';
}

function inputSchema(op: Json, schemas: Json): Record<string, unknown> {
  const properties: Json = {};
  const required: string[] = [];
  for (const where of ['path', 'query'] as const) {
    const parameters = (op.parameters ?? []).filter((p: Json) => p.in === where);
    if (parameters.length === 0) continue;
    const name = where === 'path' ? 'params' : 'query';
    properties[name] = {
      type: 'object',
      properties: Object.fromEntries(parameters.map((p: Json) => [p.name, inline(p.schema ?? {}, schemas)])),
      required: parameters.filter((p: Json) => p.required).map((p: Json) => p.name),
    };
    if (where === 'path') required.push(name);
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body) {
    properties.body = inline(body, schemas);
    if (op.requestBody.required) required.push('body');
  }
  return { type: 'object', properties, required };
}

/** Replaces `$ref`s into the document's components with the schemas themselves (a cycle keeps its `$ref`-free stub). */
function inline(schema: unknown, schemas: Json, seen: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, schemas, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as Json).$ref as string | undefined;
  if (ref?.startsWith('#/components/schemas/')) {
    const name = ref.slice('#/components/schemas/'.length);
    if (seen.has(name)) return { type: 'object', description: name };
    return inline(schemas[name], schemas, new Set([...seen, name]));
  }
  return Object.fromEntries(Object.entries(schema as Json).map(([k, v]) => [k, inline(v, schemas, seen)]));
}

/** The decision this store would make now: an exempt operation needs no approval while the store is still private. */
export const decisionForStore = (entry: CatalogEntry, storeExempt: boolean): CatalogEntry['agentDecision'] =>
  entry.agentDecision === 'APPROVAL_REQUIRED' && entry.exemptWhilePrivate && storeExempt ? 'ALLOW' : entry.agentDecision;
