import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { bareHost, isBlockedAddress, systemResolver, type Resolver } from '../../kernel/network-address.js';
import { DeadlineError, dropPool, post } from './receiver-client.js';

export const DEADLINE_MS = 10_000;
/** Sends one receiver may have open at once; more wait in the table, so a slow receiver only slows itself. */
export const PER_RECEIVER_CONCURRENCY = 16;
const EXCERPT_CHARS = 4096;
const PAYLOAD_BYTES = 16 * 1024;

export const FAILURE_REASONS = [
  'DNS',
  'TLS',
  'CONNECTION',
  'TIMEOUT',
  'HTTP_4XX',
  'HTTP_5XX',
  'HTTP_OTHER',
  'SSRF_BLOCKED',
  'SUSPENDED',
  'INTERRUPTED',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** `errorCode` of each `failureReason` (spec 01 §6.5); `INTERRUPTED` is ours: the service stopped mid-attempt. */
export const ERROR_CODE: Record<FailureReason, string> = {
  DNS: 'CONNECTION_FAILED',
  TLS: 'CONNECTION_FAILED',
  CONNECTION: 'CONNECTION_FAILED',
  INTERRUPTED: 'CONNECTION_FAILED',
  TIMEOUT: 'TIMEOUT',
  HTTP_4XX: 'NON_2XX',
  HTTP_5XX: 'NON_2XX',
  HTTP_OTHER: 'NON_2XX',
  SSRF_BLOCKED: 'BLOCKED_ADDRESS',
  SUSPENDED: 'WEBHOOK_SUSPENDED',
};

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  timeMs: number;
  bodyExcerpt: string | null;
  failureReason: FailureReason | null;
  errorCode: string | null;
}

export interface SendOptions {
  /** Exact hosts exempt from the address rules (svc dev --unsafe-allow-webhook-hosts). */
  allowHosts: readonly string[];
  resolve?: Resolver;
  /** Connections to one receiver are pooled under this key (the subscription id). */
  poolKey: string;
  deadlineMs?: number;
}

class BlockedAddressError extends Error {
  readonly code = 'SSRF_BLOCKED';
}

/**
 * Resolves and checks in the same step the socket connects with, so the address that passed the check is
 * the one connected to: a DNS answer that changes between check and connect (rebinding) cannot slip in.
 */
function checkedLookup(resolve: Resolver, exempt: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((all) => {
        const usable = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (!exempt && all.some((a) => isBlockedAddress(a.address))) throw new BlockedAddressError(hostname);
        if (usable.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/** Closes the pooled connections of a subscription (deleted, or its URL changed). */
export const dropConnections = (key: string) => dropPool(key);

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA']);
function failureOf(error: NodeJS.ErrnoException & { library?: string }): FailureReason {
  if (error instanceof BlockedAddressError) return 'SSRF_BLOCKED';
  if (error instanceof DeadlineError) return 'TIMEOUT';
  const code = error.code ?? '';
  if (DNS_CODES.has(code)) return 'DNS';
  if (/^(ERR_TLS|ERR_SSL|CERT_)|CERT|_SIGNATURE$/.test(code) || error.library === 'SSL routines') return 'TLS';
  return 'CONNECTION';
}

function reasonOfStatus(status: number): FailureReason | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 400 && status < 500) return 'HTTP_4XX';
  if (status >= 500 && status < 600) return 'HTTP_5XX';
  return 'HTTP_OTHER';
}

/**
 * One POST to a receiver within the deadline (DNS, connect, TLS and the answer included), never following
 * redirects. Never throws: every outcome is an AttemptResult.
 */
export async function sendOnce(rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const url = new URL(rawUrl);
  const host = bareHost(url.hostname);
  const exempt = options.allowHosts.includes(host);
  const result = (statusCode: number | null, failureReason: FailureReason | null, bodyExcerpt: string | null): AttemptResult => ({
    ok: failureReason === null,
    statusCode,
    timeMs: Math.round(performance.now() - started),
    bodyExcerpt,
    failureReason,
    errorCode: failureReason && ERROR_CODE[failureReason],
  });
  // Literal addresses never pass through lookup, so they are checked here.
  if (!exempt && isIP(host) && isBlockedAddress(host)) return result(null, 'SSRF_BLOCKED', null);
  if (!exempt && url.protocol !== 'https:') return result(null, 'SSRF_BLOCKED', null);
  const answer = await post({
    url,
    headers,
    body,
    poolKey: options.poolKey,
    lookup: checkedLookup(options.resolve ?? systemResolver, exempt),
    deadlineMs: options.deadlineMs ?? DEADLINE_MS,
    // Enough for the excerpt and its masking context: the rest is not worth the wait.
    maxBodyChars: EXCERPT_CHARS * 2,
    maxIdle: PER_RECEIVER_CONCURRENCY,
  });
  if (answer.status === null) return result(null, failureOf(answer.error), null);
  return result(answer.status, reasonOfStatus(answer.status), maskSecrets(answer.text).text.slice(0, EXCERPT_CHARS));
}

const TOKEN_LIKE =
  /(["']?)([\w.-]*(?:token|secret|passw(?:or)?d|api[_-]?key|authorization|credential|cookie|session)[\w.-]*)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&}\]]+)/gi;

/** Any of TOKEN_LIKE's key words: text without one has nothing to mask (far cheaper to tell than running TOKEN_LIKE). */
const TOKEN_WORD = /token|secret|passw(?:or)?d|api[_-]?key|authorization|credential|cookie|session/i;

/** Masks the values of token-like keys (`"accessToken": "…"`, `api_key=…`) in JSON or form-like text. */
export function maskSecrets(text: string): { text: string; masked: boolean } {
  if (!TOKEN_WORD.test(text)) return { text, masked: false };
  let masked = false;
  const out = text.replace(TOKEN_LIKE, (_m, quote: string, key: string, sep: string, value: string) => {
    masked = true;
    return `${quote}${key}${quote}${sep}${value.startsWith('"') ? '"****"' : '****'}`;
  });
  return { text: out, masked };
}

/** The request body as delivery records keep it: masked, then cut at 16 KB. */
export function storedPayload(body: string) {
  const { text, masked } = maskSecrets(body);
  const truncated = Buffer.byteLength(text) > PAYLOAD_BYTES;
  return { payload: truncated ? Buffer.from(text).subarray(0, PAYLOAD_BYTES).toString('utf8') : text, payloadTruncated: truncated, payloadMasked: masked };
}
