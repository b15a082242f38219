import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1. `respond` decides each answer (default 200 "ok"); returning null leaves
 * the request hanging (a receiver that never answers).
 */
export async function startReceiver(
  respond: (r: Received) => { status: number; body?: string; headers?: Record<string, string> } | null = () => ({ status: 200, body: 'ok' }),
) {
  const received: Received[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      for (const w of waiters.splice(0)) w();
      const answer = respond(r);
      if (!answer) return;
      res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Resolves once at least `n` requests arrived (or rejects after `timeoutMs`). */
    async waitFor(n: number, timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`receiver got ${received.length} of ${n} requests`);
        await new Promise<void>((ok) => {
          waiters.push(ok);
          setTimeout(ok, 50);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** Polls until `check` returns a truthy value. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((ok) => setTimeout(ok, 20));
  }
}
