import net, { isIP, type LookupFunction, type Socket } from 'node:net';
import tls from 'node:tls';
import { StringDecoder } from 'node:string_decoder';
import { bareHost } from '../../kernel/network-address.js';

/**
 * The HTTP/1.1 client of webhook sends: one POST per exchange over keep-alive connections pooled per
 * subscription, the request written in one piece, the answer read for its status and the start of its
 * body. Node's `http.request` cost ~65 µs of CPU per request here (its ClientRequest and IncomingMessage
 * streams, header validation, the agent's bookkeeping) against ~20 µs for the same exchange on a bare
 * socket, and a webhook send needs nothing of what that buys: no redirects, no streamed upload, no upgrade.
 */

export interface Exchange {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Connections are pooled under this key (the subscription id); `dropPool` closes them. */
  poolKey: string;
  /** Resolves the host when a new connection is opened (the SSRF check sits there). */
  lookup: LookupFunction;
  deadlineMs: number;
  /** Body characters worth reading: past them the exchange ends and its connection closes. */
  maxBodyChars: number;
  /** Idle connections kept per pool. */
  maxIdle: number;
}

/** How an exchange ended: its status once one arrived (the body may be cut short), or the error that ended it before. */
export type Answer = { status: number; text: string } | { status: null; error: Error };

export class DeadlineError extends Error {
  readonly code = 'DEADLINE';
}

/** What Node's client calls a response it cannot parse (failure reason CONNECTION, as before). */
const malformed = (what: string) => Object.assign(new Error(`malformed HTTP response: ${what}`), { code: 'HPE_INVALID_RESPONSE' });
const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

const MAX_HEAD_BYTES = 16 * 1024;
/** An idle connection is closed this long after its last answer unless the receiver's `Keep-Alive: timeout` says sooner. */
const IDLE_MS = 4_000;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

interface Pool {
  all: Set<Connection>;
  /** Idle connections by origin, the most recently used last (taken first: the warmest). */
  idle: Map<string, Connection[]>;
}
const pools = new Map<string, Pool>();

/** Closes every connection of a pool, idle or under way (the subscription was deleted or its URL changed). */
export function dropPool(poolKey: string) {
  const pool = pools.get(poolKey);
  pools.delete(poolKey);
  for (const connection of pool?.all ?? []) connection.socket.destroy();
}

/** Sends one POST and reads its answer within the deadline (connecting, TLS and the whole answer included); never rejects. */
export function post(exchange: Exchange): Promise<Answer> {
  return new Promise((settle) => {
    const { url } = exchange;
    let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
    let sized = false;
    for (const [name, value] of Object.entries(exchange.headers)) {
      if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) return settle({ status: null, error: new TypeError(`invalid header ${JSON.stringify(name)}`) });
      if (name.toLowerCase() === 'content-length') sized = true;
      head += `${name}: ${value}\r\n`;
    }
    if (!sized) head += `Content-Length: ${Buffer.byteLength(exchange.body)}\r\n`;
    const connection = idleConnection(exchange.poolKey, url.origin) ?? new Connection(exchange, url.origin);
    connection.start(new Reply(connection, exchange, settle));
    connection.socket.write(`${head}Connection: keep-alive\r\n\r\n${exchange.body}`);
  });
}

function idleConnection(poolKey: string, origin: string): Connection | undefined {
  const idle = pools.get(poolKey)?.idle;
  const list = idle?.get(origin);
  const connection = list?.pop();
  if (list?.length === 0) idle!.delete(origin);
  return connection;
}

/** One connection to a receiver: the reply under way on it, or none while it waits in its pool. */
class Connection {
  readonly socket: Socket;
  private reply: Reply | null = null;

  constructor(
    exchange: Exchange,
    private readonly origin: string,
  ) {
    const { url } = exchange;
    const host = bareHost(url.hostname);
    const secure = url.protocol === 'https:';
    const port = Number(url.port) || (secure ? 443 : 80);
    this.socket = secure
      ? tls.connect({ host, port, servername: isIP(host) ? undefined : host, lookup: exchange.lookup, ALPNProtocols: ['http/1.1'] })
      : net.connect({ host, port, lookup: exchange.lookup });
    this.socket.setNoDelay(true);
    let pool = pools.get(exchange.poolKey);
    if (!pool) pools.set(exchange.poolKey, (pool = { all: new Set(), idle: new Map() }));
    pool.all.add(this);
    const reused = pool;
    // Bytes while idle are none of any request's: the connection is no longer trusted.
    this.socket.on('data', (chunk: Buffer) => (this.reply ? this.reply.read(chunk) : this.socket.destroy()));
    this.socket.on('error', (error) => this.reply?.failed(error));
    this.socket.on('timeout', () => this.socket.destroy());
    this.socket.on('close', () => {
      reused.all.delete(this);
      const list = reused.idle.get(this.origin);
      const at = list?.indexOf(this) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      this.reply?.failed(hangUp());
    });
  }

  start(reply: Reply) {
    this.reply = reply;
    this.socket.setTimeout(0);
    this.socket.ref();
  }

  /** The reply ended: back to the pool if the answer left the connection reusable, else closed. */
  done(poolKey: string, reusable: boolean, idleMs: number, maxIdle: number) {
    this.reply = null;
    const pool = pools.get(poolKey);
    const list = pool?.all.has(this) ? (pool.idle.get(this.origin) ?? []) : null;
    if (!reusable || !list || list.length >= maxIdle) {
      this.socket.destroy();
      return;
    }
    list.push(this);
    pool!.idle.set(this.origin, list);
    this.socket.setTimeout(idleMs);
    // An idle connection never keeps the process alive.
    this.socket.unref();
  }
}

type Framing = { kind: 'none' } | { kind: 'length'; left: number } | { kind: 'chunked' } | { kind: 'close' };

/** Reads one answer: the head (interim 1xx answers skipped), then the body as its framing says. */
class Reply {
  private head: Buffer | null = null;
  private status: number | null = null;
  private framing: Framing = { kind: 'none' };
  private keepAlive = true;
  private idleMs = IDLE_MS;
  private text = '';
  private readonly decoder = new StringDecoder('utf8');
  /** Chunked bodies: the bytes left of the current chunk, or the line being waited for. */
  private chunkLeft = 0;
  private chunkState: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
  private partialLine: Buffer | null = null;
  private ended = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly connection: Connection,
    private readonly exchange: Exchange,
    private readonly settle: (answer: Answer) => void,
  ) {
    this.timer = setTimeout(() => {
      if (this.status === null) this.fail(new DeadlineError());
      else this.finish(false);
    }, exchange.deadlineMs);
  }

  /** The socket failed or closed: an answer without a length ends there, any other is cut short (its status stands). */
  failed(error: Error) {
    if (this.status === null) this.fail(error);
    else this.finish(false);
  }

  read(chunk: Buffer) {
    if (this.ended) return;
    try {
      if (this.status === null) this.readHead(chunk);
      else this.readBody(chunk);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private readHead(chunk: Buffer) {
    const bytes = this.head ? Buffer.concat([this.head, chunk]) : chunk;
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) {
      if (bytes.length > MAX_HEAD_BYTES) throw malformed('head too large');
      this.head = bytes;
      return;
    }
    this.head = null;
    const [statusLine, ...lines] = bytes.toString('latin1', 0, end).split('\r\n');
    const m = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine);
    if (!m) throw malformed('status line');
    const status = Number(m[2]);
    let length: number | null = null;
    let chunked = false;
    let keepAlive = m[1] === '1';
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) throw malformed('header line');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value)) throw malformed('content-length');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked$/i.test(value);
      else if (name === 'connection') keepAlive = /\bclose\b/i.test(value) ? false : /\bkeep-alive\b/i.test(value) || keepAlive;
      else if (name === 'keep-alive') {
        const timeout = /\btimeout=(\d+)/i.exec(value);
        // A second before the receiver's own limit, as Node's agent does: never reuse one it is closing.
        if (timeout) this.idleMs = Math.min(IDLE_MS, Math.max(0, Number(timeout[1]) * 1000 - 1000));
      }
    }
    const rest = bytes.subarray(end + 4);
    // An interim answer (100 Continue, 103 Early Hints): the final one follows on the same connection.
    if (status >= 100 && status < 200 && status !== 101) {
      if (rest.length > 0) this.readHead(rest);
      return;
    }
    this.status = status;
    this.keepAlive = keepAlive && status !== 101;
    this.framing =
      status === 204 || status === 304 || status === 101
        ? { kind: 'none' }
        : chunked
          ? { kind: 'chunked' }
          : length !== null
            ? { kind: 'length', left: length }
            : { kind: 'close' };
    if (this.framing.kind === 'none' || (this.framing.kind === 'length' && this.framing.left === 0)) return this.finish(rest.length === 0);
    if (rest.length > 0) this.readBody(rest);
  }

  private readBody(chunk: Buffer) {
    const framing = this.framing;
    if (framing.kind === 'chunked') return this.readChunks(chunk);
    if (framing.kind === 'length') {
      const part = chunk.length > framing.left ? chunk.subarray(0, framing.left) : chunk;
      framing.left -= part.length;
      if (this.keep(part) && framing.left === 0) this.finish(chunk.length === part.length);
      return;
    }
    this.keep(chunk);
  }

  private readChunks(chunk: Buffer) {
    const bytes = this.partialLine ? Buffer.concat([this.partialLine, chunk]) : chunk;
    this.partialLine = null;
    let at = 0;
    while (at < bytes.length && !this.ended) {
      if (this.chunkState === 'data') {
        const part = bytes.subarray(at, at + this.chunkLeft);
        at += part.length;
        this.chunkLeft -= part.length;
        if (this.chunkLeft === 0) this.chunkState = 'crlf';
        if (!this.keep(part)) return;
        continue;
      }
      const newline = bytes.indexOf(10, at);
      if (newline < 0) {
        if (bytes.length - at > MAX_HEAD_BYTES) throw malformed('chunk line too long');
        this.partialLine = bytes.subarray(at);
        return;
      }
      const line = bytes.toString('latin1', at, newline).replace(/\r$/, '');
      at = newline + 1;
      if (this.chunkState === 'crlf') {
        if (line !== '') throw malformed('chunk end');
        this.chunkState = 'size';
      } else if (this.chunkState === 'size') {
        const size = /^[0-9a-f]+/i.exec(line);
        if (!size) throw malformed('chunk size');
        this.chunkLeft = parseInt(size[0], 16);
        this.chunkState = this.chunkLeft === 0 ? 'trailer' : 'data';
      } else if (line === '') this.finish(at === bytes.length);
    }
  }

  /** Keeps body text while it is still wanted; false once enough was read (the exchange then ends). */
  private keep(part: Buffer): boolean {
    this.text += this.decoder.write(part);
    if (this.text.length <= this.exchange.maxBodyChars) return true;
    this.finish(false);
    return false;
  }

  private finish(reusable: boolean) {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.connection.done(this.exchange.poolKey, reusable && this.keepAlive, this.idleMs, this.exchange.maxIdle);
    this.settle({ status: this.status!, text: this.text + this.decoder.end() });
  }

  private fail(error: Error) {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    this.connection.done(this.exchange.poolKey, false, 0, 0);
    this.settle({ status: null, error });
  }
}
