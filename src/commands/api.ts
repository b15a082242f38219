import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../cli/api-command.js';
import { UsageError } from '../cli/usage-error.js';
import { ApiCallError, type Envelope, type RawAnswer, type RequestOptions } from '../client/api-client.js';

/** First path segments the service serves outside the admin API; any other path is the spec's, under `/v1`. */
const SERVICE_ROOTS = new Set(['v1', 'storefront', 'auth', '.well-known', '_dev', 'apps', 'pay', 'files', 'docs', 'oauth2']);
/** Paths that never take `X-Store-Id`: the account's own resources and documents about the service. */
const STORELESS = /^\/v1\/(me|public)(\/|$)|^\/v1\/openapi\.json$/;
/** Enough for any list the service keeps; a loop past it is a cursor that does not move. */
const MAX_PAGES = 10_000;

/**
 * The request path of PATH as written in the spec (`/me/stores`, relative to the admin API) or from the
 * service root (`/v1/…`, `/storefront/v1/…`, `/auth/…`, `/.well-known/…`).
 */
export function servicePath(written: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(written)) {
    let hint = '';
    try {
      const url = new URL(written);
      hint = ` (here: svc api METHOD ${url.pathname}${url.search})`;
    } catch {
      // Not a URL after all: the general hint is enough.
    }
    throw new UsageError(
      `svc api takes a path, not a URL${hint}: the service is the profile's (svc profiles add NAME --api-url URL) or SVC_API_URL's, so a token is never sent to an address typed here`,
    );
  }
  const path = written.startsWith('/') ? written : `/${written}`;
  return SERVICE_ROOTS.has(path.split(/[/?#]/)[1]) ? path : `/v1${path}`;
}

const isEnvelope = (value: unknown): value is Envelope =>
  typeof value === 'object' && value !== null && typeof (value as Envelope).meta?.isSuccess === 'boolean';

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export default class Api extends ApiCommand<typeof Api> {
  static override summary = 'Call any API operation: svc api METHOD PATH';
  static override description = [
    "PATH is written as in the spec, relative to the admin API (/me/stores is /v1/me/stores), or from the service root (/v1/…, /storefront/v1/…, /auth/v1/…, /.well-known/…). A full URL is refused: the address is the profile's or SVC_API_URL's.",
    'X-Store-Id is sent for store paths (/v1/…, /storefront/v1/…) when a store is chosen; with none chosen, the only store the token reaches is used where the service asks for one. Buyer-API paths (/storefront/…) get no account token: pass a buyer token with -H "Authorization: Bearer …".',
    'Answers that are not API envelopes (the OpenAPI document, well-known documents) are printed as they are. The full operation list is at GET /v1/openapi.json.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> api GET /store --store dev-store',
    '<%= config.bin %> api PATCH /store --data \'{"guestCheckout":false}\' --dry-run',
    '<%= config.bin %> api GET /audit-logs --query limit=5 --query outcome=DENIED --json',
    "<%= config.bin %> api GET /products --paginate --query size=100 --json | jq -c '.contents[]'",
    '<%= config.bin %> api GET /storefront/v1/store --store dev-store',
    '<%= config.bin %> api POST /members --data @member.json --idempotency-key add-kim',
    '<%= config.bin %> api GET /v1/openapi.json',
  ];
  static override args = {
    method: Args.string({ required: true, options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete'] }),
    path: Args.string({ required: true, description: 'e.g. /store, /me/stores, /storefront/v1/products/prd_…' }),
  };
  static override flags = {
    data: Flags.string({ char: 'd', description: 'JSON body, or @file.json' }),
    query: Flags.string({ char: 'q', description: 'Query parameter k=v', multiple: true }),
    header: Flags.string({ char: 'H', description: 'Request header "Name: value" (wins over the ones svc sets)', multiple: true }),
    paginate: Flags.boolean({ description: "GET every page of a list (page/size or nextCursor) and print each page's data as one JSON line" }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key header' }),
    'dry-run': Flags.boolean({ description: 'Validate and preview without executing (x-svc-dry-run: 1)' }),
  };

  async run() {
    const method = this.args.method.toUpperCase();
    const path = servicePath(this.args.path);
    if (this.flags.paginate && method !== 'GET') throw new UsageError('--paginate reads lists: it takes GET only');
    const query = this.pairs(this.flags.query, '=', '--query takes k=v');
    const headers = Object.fromEntries(
      Object.entries(this.pairs(this.flags.header, ':', '--header takes "Name: value"')).map(([k, v]) => [k.toLowerCase(), v.trim()]),
    );
    const storePath = (path.startsWith('/v1/') && !STORELESS.test(path)) || path.startsWith('/storefront/') || path.startsWith('/_dev/');
    const options: RequestOptions = {
      query,
      headers,
      body: this.flags.data === undefined ? undefined : this.readJsonInput(this.flags.data),
      storeId: storePath && !('x-store-id' in headers) ? this.chosenStore : undefined,
      idempotencyKey: this.flags['idempotency-key'],
      dryRun: this.flags['dry-run'],
      anonymous: path.startsWith('/storefront/'),
    };

    if (!this.flags.paginate) {
      this.show(await this.call(method, path, options));
      return;
    }
    const seen = new Set<string>();
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const answer = await this.call(method, path, options);
      const body = parseJson(answer.text);
      if (!isEnvelope(body) || !body.meta.isSuccess) return this.show(answer);
      const data = body.data as { page?: number; totalPages?: number; nextCursor?: string | null } | null;
      this.log(JSON.stringify(data));
      if (typeof data?.page === 'number' && typeof data.totalPages === 'number' && data.page < data.totalPages)
        options.query = { ...options.query, page: data.page + 1 };
      else if (typeof data?.nextCursor === 'string' && !seen.has(data.nextCursor)) {
        seen.add(data.nextCursor);
        options.query = { ...options.query, cursor: data.nextCursor };
      } else return;
    }
  }

  /**
   * One request. Sent with no store chosen, a store path that the service answers `STORE_ID_REQUIRED` (it
   * refuses before doing anything) is sent again to the only store the token reaches.
   */
  private async call(method: string, path: string, options: RequestOptions): Promise<RawAnswer> {
    const answer = await this.client.raw(method, path, options);
    if (answer.status !== 400 || options.storeId || 'x-store-id' in (options.headers ?? {})) return answer;
    const body = parseJson(answer.text);
    if (!isEnvelope(body) || body.error?.code !== 'STORE_ID_REQUIRED') return answer;
    options.storeId = await this.storeId();
    return this.client.raw(method, path, options);
  }

  /** An envelope as the other commands show one; any other answer as it is (exit 1 unless 2xx). */
  private show(answer: RawAnswer) {
    const body = parseJson(answer.text);
    if (isEnvelope(body)) {
      if (!body.meta.isSuccess) throw new ApiCallError(answer.status, body.error!);
      this.output(body.data, () => {
        if (body.meta.code !== 'OK') this.logToStderr(`${body.meta.code}: ${body.meta.message}`);
        this.log(JSON.stringify(body.data, null, 2));
      });
      return;
    }
    if (answer.text !== '') this.log(answer.text.replace(/\n$/, ''));
    if (answer.status >= 400) this.exit(1);
  }

  /** `k=v` (or `Name: value`) flag values as an object. */
  private pairs(values: string[] | undefined, separator: string, usage: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const pair of values ?? []) {
      const at = pair.indexOf(separator);
      if (at < 1) throw new UsageError(`${usage}, got "${pair}"`);
      out[pair.slice(0, at).trim()] = pair.slice(at + 1);
    }
    return out;
  }
}
