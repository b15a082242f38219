import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { bareHost, isBlockedAddress, systemResolver, type Resolver } from '../../kernel/network-address.js';

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
class DeadlineError extends Error {
  readonly code = 'DEADLINE';
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

const agents = new Map<string, http.Agent>();
function agentFor(key: string, secure: boolean): http.Agent {
  const id = `${key}|${secure ? 's' : ''}`;
  let agent = agents.get(id);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: PER_RECEIVER_CONCURRENCY, scheduling: 'lifo' as const };
    agent = secure ? new https.Agent(options) : new http.Agent(options);
    agents.set(id, agent);
  }
  return agent;
}

/** Closes the pooled connections of a subscription (deleted, or its URL changed). */
export function dropConnections(key: string) {
  for (const id of [`${key}|`, `${key}|s`]) {
    agents.get(id)?.destroy();
    agents.delete(id);
  }
}

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
 * One POST to a receiver within the deadline (DNS, connect, TLS and headers included), never following
 * redirects. Never throws: every outcome is an AttemptResult.
 */
export function sendOnce(rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const url = new URL(rawUrl);
  const host = bareHost(url.hostname);
  const exempt = options.allowHosts.includes(host);
  const secure = url.protocol === 'https:';
  return new Promise((settle) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (statusCode: number | null, failureReason: FailureReason | null, bodyExcerpt: string | null) => {
      clearTimeout(timer);
      settle({
        ok: failureReason === null,
        statusCode,
        timeMs: Math.round(performance.now() - started),
        bodyExcerpt,
        failureReason,
        errorCode: failureReason && ERROR_CODE[failureReason],
      });
    };
    // Literal addresses never pass through lookup, so they are checked here.
    if (!exempt && isIP(host) && isBlockedAddress(host)) return finish(null, 'SSRF_BLOCKED', null);
    if (!exempt && !secure) return finish(null, 'SSRF_BLOCKED', null);
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      headers,
      agent: agentFor(options.poolKey, secure),
      lookup: checkedLookup(options.resolve ?? systemResolver, exempt),
    });
    timer = setTimeout(() => req.destroy(new DeadlineError()), options.deadlineMs ?? DEADLINE_MS);
    req.on('error', (error) => finish(null, failureOf(error), null));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let text = '';
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        finish(status, reasonOfStatus(status), maskSecrets(text).text.slice(0, EXCERPT_CHARS));
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        // Enough for the excerpt (and its masking context): the rest is not worth the wait.
        if (text.length > EXCERPT_CHARS * 2) {
          res.destroy();
          end();
        }
      });
      res.on('end', end);
      // A body cut off by the deadline or the peer still leaves a known status.
      res.on('close', end);
    });
    req.end(body);
  });
}

const TOKEN_LIKE =
  /(["']?)([\w.-]*(?:token|secret|passw(?:or)?d|api[_-]?key|authorization|credential|cookie|session)[\w.-]*)\1(\s*[:=]\s*)("(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&}\]]+)/gi;

/** Masks the values of token-like keys (`"accessToken": "…"`, `api_key=…`) in JSON or form-like text. */
export function maskSecrets(text: string): { text: string; masked: boolean } {
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
  const bytes = Buffer.from(text);
  const truncated = bytes.length > PAYLOAD_BYTES;
  return { payload: truncated ? bytes.subarray(0, PAYLOAD_BYTES).toString('utf8') : text, payloadTruncated: truncated, payloadMasked: masked };
}
