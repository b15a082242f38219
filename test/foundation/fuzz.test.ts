/**
 * Schema-driven fuzzing (issue 10): every operation of the live `/v1/openapi.json`, with requests made
 * from its own parameter and body schemas and mutations of them (test/helpers/openapi-fuzz.ts), as the
 * seeded owner of a throwaway service (real writes) and anonymously. No answer may be a 5xx. The seed is
 * fixed, so a failure replays; `FUZZ_SEED=n` explores another corner. The kept requests are earlier
 * findings, sent on every run.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { buy, connectSandbox, createProduct, ok } from '../checkout/support.js';
import { login, startTestService, type TestService } from '../helpers/service.js';
import { mutatedRequest, operationsOf, refResolver, urlOf, validRequest, type FuzzOperation, type FuzzRequest, type KnownValues } from '../helpers/openapi-fuzz.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_110);
const GENERATED = 5;
const MUTATED = 6;
const REQUEST_TIMEOUT_MS = 10_000;
const LANES = 4;

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** Real ids of the store's resources, so generated requests also reach past the 404s into the handlers. */
async function knownValues(): Promise<KnownValues> {
  await connectSandbox(svc.api);
  const { productId, optionId } = await createProduct(svc.api, {});
  const category = ok(await svc.api('POST', '/v1/categories', { body: { name: '퍼징' } }), 201);
  const { sheet, start } = await buy(svc, svc.storeId, { productId, optionId });
  const order = ok(await svc.api('GET', '/v1/orders')).contents[0];
  // A storefront site and a custom domain, so the storefront operations reach past STOREFRONT_SITE_NOT_FOUND.
  ok(await svc.api('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 201);
  const domain = ok(await svc.api('POST', '/v1/storefront/site/domains', { body: { hostname: 'fuzz.example.test' } }), 201);
  return {
    domainId: [domain.domainId, 'dom_platform'],
    productId: [productId],
    variantId: [optionId],
    categoryId: [category.categoryId],
    checkoutId: [sheet.checkoutId],
    paymentId: [start.paymentId],
    orderId: [order.orderId],
    provider: ['pg_one', 'pg_two'],
    environment: ['TEST', 'LIVE'],
  };
}

/** The owner's login token; renewed when a fuzzed logout ends it. */
let token = '';

/** Sends a request; `status` is null when no answer came (connection reset, timeout). */
async function send(req: FuzzRequest): Promise<{ status: number | null; text: string; url: string; sent: string }> {
  const url = urlOf(svc.url, req);
  // One connection per request: no request can leave a kept-alive socket in a state that fails the next.
  const headers: Record<string, string> = { connection: 'close' };
  if (req.token) headers.authorization = `Bearer ${token}`;
  if (req.op.headers.some((h) => h.name.toLowerCase() === 'x-store-id') || req.op.path.startsWith('/storefront/')) headers['x-store-id'] = svc.storeId;
  let body: BodyInit | undefined;
  let sent = '';
  if (req.body && req.op.method !== 'GET') {
    if ('json' in req.body) {
      sent = JSON.stringify(req.body.json) ?? '';
      headers['content-type'] = 'application/json';
      body = sent;
    } else if ('text' in req.body) {
      sent = req.body.text;
      headers['content-type'] = req.body.type;
      body = sent;
    } else {
      const form = new FormData();
      for (const [k, v] of Object.entries(req.body.form)) {
        if (typeof v === 'string') form.append(k, v);
        else form.append(k, new Blob([JSON.stringify(v)], { type: 'image/png' }), 'fuzz.png');
      }
      sent = `multipart ${JSON.stringify(req.body.form)}`;
      body = form;
    }
  }
  try {
    const res = await fetch(url, { method: req.op.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    // A stream (server-sent events) answers its status up front and never ends: the status is the answer.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, text: '(event stream)', url, sent };
    }
    return { status: res.status, text: await res.text(), url, sent };
  } catch (error) {
    return { status: null, text: `${error}${(error as Error).cause ? ` (${(error as Error).cause})` : ''}`, url, sent };
  }
}

const excerpt = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/** Earlier findings, sent on every run: each answered 500 before its fix. */
function keptRequests(ops: FuzzOperation[]): FuzzRequest[] {
  const op = (method: string, path: string) => {
    const found = ops.find((o) => o.method === method && o.path === path);
    if (!found) throw new Error(`the document has no ${method} ${path}`);
    return found;
  };
  const kept = (o: FuzzOperation, parts: Partial<FuzzRequest>): FuzzRequest => ({ op: o, kind: 'kept', pathParams: {}, query: {}, body: null, token: true, ...parts });
  return [
    kept(op('PUT', '/v1/store/payment-settings'), { body: { json: { checkoutOrigins: ['not a url'] } } }),
    kept(op('PUT', '/v1/store/payment-settings'), { body: { json: { checkoutOrigins: ['https://', 'https://shop.example.com/path'] } } }),
    kept(op('GET', '/v1/payments'), { query: { to: '9200-20-25' } }),
    kept(op('GET', '/v1/orders'), { query: { orderedTo: '9200-20-25' } }),
  ];
}

test('no operation of the OpenAPI document answers 5xx to generated or mutated requests', async () => {
  const started = performance.now();
  const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  const resolve = refResolver(doc);
  const ops = operationsOf(doc);
  assert.ok(ops.length >= 100, `only ${ops.length} operations in the document`);
  const known = await knownValues();
  token = svc.ownerToken;

  const perOperation = ops.map((op, i) => {
    const seed = SEED + i;
    const asOwner = (req: FuzzRequest) => ({ ...req, token: !op.anonymous });
    return [
      ...fc.sample(validRequest(op, resolve, known), { seed, numRuns: GENERATED }).map(asOwner),
      ...fc.sample(mutatedRequest(op, resolve, known), { seed, numRuns: MUTATED }).map(asOwner),
      // Anonymously: refused (or, for public operations, served) without a token, never a 5xx.
      ...fc.sample(validRequest(op, resolve, known), { seed: seed + 1, numRuns: 1 }).map((req) => ({ ...req, kind: 'anonymous', token: false })),
    ];
  });

  const failures: string[] = [];
  const succeeded = new Set<string>();
  const statuses = new Map<string, number>();
  let sent = 0;
  const run = async (requests: FuzzRequest[]) => {
    for (const req of requests) {
      const answer = await send(req);
      sent++;
      statuses.set(String(answer.status), (statuses.get(String(answer.status)) ?? 0) + 1);
      if (answer.status !== null && answer.status < 300) succeeded.add(req.op.operationId);
      if (answer.status === null || answer.status >= 500) {
        failures.push([
          `${req.op.operationId} (${req.kind}${req.token ? ', owner' : ', anonymous'}): ${answer.status ?? 'no answer'}`,
          `  request: ${req.op.method} ${excerpt(answer.url, 300)}`,
          ...(answer.sent ? [`  body: ${excerpt(answer.sent, 300)}`] : []),
          `  answer: ${excerpt(answer.text, 600)}`,
        ].join('\n'));
      }
      // A fuzzed logout (or token revocation) ends the owner's login: sign in again and go on.
      if (req.token && answer.status === 401) token = await login(svc);
    }
  };
  await run(keptRequests(ops));
  // A few operations at a time: password hashing runs off the event loop, so lanes overlap it.
  const queue = [...perOperation];
  await Promise.all(Array.from({ length: LANES }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await run(next);
  }));

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const byStatus = [...statuses].sort().map(([status, n]) => `${status}×${n}`).join(' ');
  console.log(`fuzz: ${sent} requests over ${ops.length} operations in ${seconds} s (seed ${SEED}): ${byStatus}; ${succeeded.size} operations answered 2xx at least once`);
  assert.equal(failures, [], `${failures.length} of ${sent} requests answered 5xx (seed ${SEED}):\n${failures.join('\n')}`);
  // The walk reaches past the refusals: otherwise it would prove nothing about the handlers.
  assert.ok(succeeded.size >= ops.length / 3, `only ${succeeded.size} of ${ops.length} operations ever succeeded`);
});

test.run();
