// How the MCP tools reach the administration API (one call and its answer), shared by both transports.

/** One call of the administration API as the MCP tools make it; the answer is the API's, unchanged. */
export interface ApiCall {
  method: string;
  /** A concrete path (`/v1/products/prd_1`), query string excluded. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  /** The store of the request (id or code); omitted for account requests. */
  storeId?: string;
  idempotencyKey?: string;
  dryRun?: boolean;
}

export interface ApiAnswer {
  status: number;
  /** The envelope `{ meta, data, error }`, or whatever else the service answered. */
  body: any;
}

/**
 * How the tools reach the API. Both transports send every call through the service's own request
 * pipeline, marked as an AI agent's request (`X-Svc-Agent: mcp`): in process for remote MCP, over HTTP for
 * `svc mcp` — so policy, approvals, audit and AI-action counting stay in one place (DESIGN.md §6).
 */
export type ApiCaller = (call: ApiCall) => Promise<ApiAnswer>;
