import { readCredential, withCredentialLock, writeCredential, type Credential } from './config.js';

export interface Envelope<T = any> {
  meta: { status: number; code: string; message: string; isSuccess: boolean };
  data: T;
  error: ApiErrorBody | null;
}

export interface ApiErrorBody {
  code: string;
  message: string;
  details: Record<string, unknown>;
  fieldErrors: { field: string; code: string; message: string }[];
  docs: string;
  traceId: string;
}

/** An answer of the API with `isSuccess: false`. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
  ) {
    super(`${body.code}: ${body.message}`);
  }
}

/** The service could not be reached at all. */
export class ConnectionError extends Error {}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  storeId?: string;
  idempotencyKey?: string;
  dryRun?: boolean;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Send no credential (the buyer API takes buyer tokens only, given in `headers`). */
  anonymous?: boolean;
  /** A multipart body (file uploads) instead of JSON. */
  form?: FormData;
}

/** An answer as received, enveloped or not (`svc api` prints OpenAPI and well-known documents as they are). */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

export interface ClientOptions {
  apiUrl: string;
  profile: string;
  /** A token from SVC_TOKEN wins over the profile's saved credential. */
  token?: string;
}

const REFRESH_MARGIN_MS = 30_000;

/**
 * The one HTTP client of every command, local or remote. Login credentials are refreshed before they
 * expire (and once more on a 401); the rotated pair is saved at once, since the old refresh token is dead.
 */
export class ApiClient {
  private credential: Credential | undefined;

  constructor(readonly options: ClientOptions) {
    this.credential = options.token ? { kind: 'token', token: options.token } : readCredential(options.profile);
  }

  get apiUrl() {
    return this.options.apiUrl.replace(/\/$/, '');
  }

  get hasCredential() {
    return this.credential !== undefined;
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Envelope<T>> {
    const { response, text } = await this.sendWithRefresh(method, path, options, true);
    return this.envelopeOf<T>(response, text!);
  }

  /** Any answer, with the credentials and refresh of `request`; nothing is thrown for its status. */
  async raw(method: string, path: string, options: RequestOptions = {}): Promise<RawAnswer> {
    const { response, text } = await this.sendWithRefresh(method, path, options, true);
    return { status: response.status, headers: response.headers, text: text! };
  }

  /** A raw response (streams such as server-sent events), with the credentials, refresh and errors of `request`. */
  async stream(path: string, options: RequestOptions = {}): Promise<Response> {
    const { response, text } = await this.sendWithRefresh('GET', path, options, false);
    // An answer other than the stream is an error envelope: envelopeOf throws it as an ApiCallError.
    if (!response.ok) this.envelopeOf(response, text ?? (await response.text()));
    return response;
  }

  /**
   * Only an expired or unknown login token is worth one refresh and retry: other 401s (a wrong password at
   * /auth/v1/login, a revoked token) would fail again, or run a request twice.
   */
  private async sendWithRefresh(method: string, path: string, options: RequestOptions, readBody: boolean) {
    let response = await this.send(method, path, options, options.anonymous ? undefined : await this.bearer());
    let text = readBody || !response.ok ? await response.text() : undefined;
    if (response.status === 401 && !options.anonymous && this.credential?.kind === 'login' && errorCode(text!) === 'UNAUTHORIZED') {
      response = await this.send(method, path, options, await this.bearer(true));
      text = readBody || !response.ok ? await response.text() : undefined;
    }
    return { response, text };
  }

  private envelopeOf<T>(response: Response, text: string): Envelope<T> {
    let envelope: Envelope<T>;
    try {
      envelope = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new ApiCallError(response.status, {
        code: 'INVALID_RESPONSE',
        message: `not an API response (HTTP ${response.status}): ${text.slice(0, 200)}`,
        details: {},
        fieldErrors: [],
        docs: '',
        traceId: '',
      });
    }
    if (!envelope.meta?.isSuccess) throw new ApiCallError(response.status, envelope.error!);
    return envelope;
  }

  /** POSTs a form or JSON to an OAuth endpoint (not enveloped). */
  async oauth(path: string, form: Record<string, string>): Promise<{ status: number; body: any }> {
    const response = await this.fetch(`${this.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    return { status: response.status, body: await response.json().catch(() => ({})) };
  }

  private async send(method: string, path: string, options: RequestOptions, bearer: string | undefined) {
    const url = new URL(`${this.apiUrl}${path.startsWith('/') ? path : `/${path}`}`);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', 'accept-language': 'ko', ...options.headers };
    if (bearer && !('authorization' in headers)) headers.authorization = `Bearer ${bearer}`;
    if (options.storeId) headers['x-store-id'] = options.storeId;
    if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
    if (options.dryRun) headers['x-svc-dry-run'] = '1';
    let body: string | FormData | undefined = options.form;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    return this.fetch(url, { method, headers, body, signal: options.signal });
  }

  private async fetch(url: string | URL, init: RequestInit) {
    try {
      return await fetch(url, init);
    } catch (error) {
      throw new ConnectionError(
        `cannot reach the svc service at ${this.apiUrl} (${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}). Is \`svc dev\` running, or is the profile's API URL right?`,
      );
    }
  }

  private async bearer(forceRefresh = false): Promise<string | undefined> {
    const credential = this.credential;
    if (!credential) return undefined;
    if (credential.kind === 'token') return credential.token;
    if (!forceRefresh && credential.expiresAt - REFRESH_MARGIN_MS > Date.now()) return credential.accessToken;
    // Parallel commands share one saved login: refresh tokens work once, so only one process refreshes
    // and the others take the pair it saved (a second use would revoke the whole session).
    const refreshed = await withCredentialLock(async () => {
      const saved = readCredential(this.options.profile);
      if (saved?.kind === 'login' && saved.refreshToken !== credential.refreshToken) return saved;
      const { status, body } = await this.oauth('/auth/token', {
        grant_type: 'refresh_token',
        refresh_token: credential.refreshToken,
        client_id: credential.clientId,
      });
      // A refused refresh leaves the saved login as it is: only `svc login` and `svc logout` replace it.
      if (status !== 200) return { refused: refreshRefusal(status, body) };
      const next: Credential = {
        kind: 'login',
        accessToken: body.access_token,
        refreshToken: body.refresh_token,
        expiresAt: Date.now() + body.expires_in * 1000,
        clientId: credential.clientId,
        apiUrl: this.apiUrl,
      };
      writeCredential(this.options.profile, next);
      return next;
    });
    if ('refused' in refreshed) {
      throw new ApiCallError(401, {
        code: 'UNAUTHORIZED',
        message: `the saved login of profile "${this.options.profile}" could not be refreshed at ${this.apiUrl}: ${refreshed.refused.reason}. Log in again: svc login --profile ${this.options.profile}`,
        details: { refresh: refreshed.refused.answer },
        fieldErrors: [],
        docs: '',
        traceId: '',
      });
    }
    this.credential = refreshed;
    return (refreshed as Extract<Credential, { kind: 'login' }>).accessToken;
  }
}

/** What the token endpoint's refusal of a refresh means to the person running the command. */
function refreshRefusal(status: number, body: { error?: string; error_description?: string }) {
  const said = [body.error, body.error_description].filter(Boolean).join(': ');
  const reason =
    body.error === 'invalid_grant'
      ? `the session has ended (${said}): it expired, was logged out or revoked, or the password changed`
      : `the service answered HTTP ${status}${said ? ` (${said})` : ''}`;
  return { reason, answer: { status, error: body.error ?? null, errorDescription: body.error_description ?? null } };
}

function errorCode(text: string): string | undefined {
  try {
    return (JSON.parse(text) as Envelope).error?.code;
  } catch {
    return undefined;
  }
}
