import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { bareHost, isBlockedAddress, systemResolver, type Resolver } from '../kernel/network-address.js';
import { RuntimeCallbackError, type FetchRequest, type FetchResponse } from './types.js';

export interface GuardedFetchOptions {
  /** The installed version's `network.hosts`: exact host names (any port); nothing else is reachable. */
  hosts: readonly string[];
  resolve?: Resolver;
  /** Exact hosts exempt from the https and address rules (svc dev's --unsafe-allow-webhook-hosts). */
  allowHosts?: readonly string[];
  timeoutMs?: number;
  maxResponseBytes?: number;
}

const blocked = (message: string) => new RuntimeCallbackError('FETCH_BLOCKED', message);
const failed = (message: string) => new RuntimeCallbackError('FETCH_FAILED', message);

class BlockedAddressError extends Error {}

/**
 * Resolves and checks in the step the socket connects with, so the address that passed the check is the
 * one connected to: a DNS answer that changes between check and connect (rebinding) cannot slip in.
 */
function checkedLookup(resolve: Resolver, exempt: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((all) => {
        const found = all.find((a) => isBlockedAddress(a.address));
        if (!exempt && found) throw new BlockedAddressError(found.address);
        const usable = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (usable.length === 0) throw Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' });
        if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/** Headers the connection owns; an app setting them could smuggle requests or confuse the receiver. */
const CONNECTION_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection']);

/**
 * The `fetch` callback of an installation: the server performs the request only to a declared host, over
 * https, to public addresses (the same rules as webhooks), without following redirects (a redirect could
 * lead anywhere; the app gets the 3xx and may fetch the location if it is declared).
 */
export function createGuardedFetch(options: GuardedFetchOptions): (request: FetchRequest) => Promise<FetchResponse> {
  const declared = new Set(options.hosts.map((h) => h.toLowerCase()));
  const allow = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  const resolve = options.resolve ?? systemResolver;
  const timeoutMs = options.timeoutMs ?? 8000;
  const maxBytes = options.maxResponseBytes ?? 1024 * 1024;

  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw failed(`fetch: "${request.url}" is not an absolute URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw blocked(`fetch: only http(s) URLs can be fetched, not ${url.protocol}`);
    if (url.username || url.password) throw blocked('fetch: URLs with user info are not allowed');
    const host = bareHost(url.hostname).toLowerCase();
    if (!declared.has(host)) throw blocked(`fetch to ${host} is not allowed: add it to network.hosts in manifest.json`);
    const exempt = allow.has(host);
    if (!exempt && url.protocol !== 'https:') throw blocked(`fetch to ${host} must use https`);
    if (!exempt && isIP(host) && isBlockedAddress(host)) throw blocked(`fetch to ${host} is not allowed: private or reserved address`);

    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) if (!CONNECTION_HEADERS.has(name.toLowerCase())) headers[name] = value;
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<FetchResponse>((done, reject) => {
      let req: http.ClientRequest;
      try {
        req = transport.request(url, {
          method: request.method,
          headers,
          agent: false,
          lookup: checkedLookup(resolve, exempt),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        return reject(failed(`fetch to ${host} failed: ${(error as Error).message}`));
      }
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof BlockedAddressError)
          reject(blocked(`fetch to ${host} is not allowed: it resolves to a private or reserved address (${error.message})`));
        else if (error.name === 'AbortError' || error.name === 'TimeoutError') reject(failed(`fetch to ${host} timed out after ${timeoutMs} ms`));
        else reject(failed(`fetch to ${host} failed: ${error.code ?? error.message}`));
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy();
            reject(failed(`fetch to ${host}: the response is larger than ${maxBytes} bytes`));
          } else chunks.push(chunk);
        });
        res.on('end', () => {
          const pairs: [string, string][] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
          done({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            url: url.href,
            headers: pairs,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      });
      req.end(request.body ?? undefined);
    });
  };
}
