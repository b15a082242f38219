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
import { login, startTestService, type TestService } from '../helpers/service.js';
import { mutatedRequest, operationsOf, refResolver, validRequest, type FuzzOperation, type FuzzRequest } from '../helpers/openapi-fuzz.js';
import { excerpt, knownValues, sendRequest } from '../helpers/openapi-requests.js';

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

/** The owner's login token; renewed when a fuzzed logout ends it. */
let token = '';

const send = (req: FuzzRequest) => sendRequest(svc.url, req, { token, storeId: svc.storeId }, REQUEST_TIMEOUT_MS);

/** Earlier findings, sent on every run: each answered 500 before its fix. */
function keptRequests(ops: FuzzOperation[]): FuzzRequest[] {
  const op = (method: string, path: string) => {
    const found = ops.find((o) => o.method === method && o.path === path);
    if (!found) throw new Error(`the document has no ${method} ${path}`);
    return found;
  };
  const kept = (o: FuzzOperation, parts: Partial<FuzzRequest>): FuzzRequest => ({
    op: o,
    kind: 'kept',
    pathParams: {},
    query: {},
    body: null,
    token: true,
    ...parts,
  });
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
  const known = await knownValues(svc);
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
        failures.push(
          [
            `${req.op.operationId} (${req.kind}${req.token ? ', owner' : ', anonymous'}): ${answer.status ?? 'no answer'}`,
            `  request: ${req.op.method} ${excerpt(answer.url, 300)}`,
            ...(answer.sent ? [`  body: ${excerpt(answer.sent, 300)}`] : []),
            `  answer: ${excerpt(answer.text, 600)}`,
          ].join('\n'),
        );
      }
      // A fuzzed logout (or token revocation) ends the owner's login: sign in again and go on.
      if (req.token && answer.status === 401) token = await login(svc);
    }
  };
  await run(keptRequests(ops));
  // A few operations at a time: password hashing runs off the event loop, so lanes overlap it.
  const queue = [...perOperation];
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await run(next);
    }),
  );

  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const byStatus = [...statuses]
    .sort()
    .map(([status, n]) => `${status}×${n}`)
    .join(' ');
  console.log(
    `fuzz: ${sent} requests over ${ops.length} operations in ${seconds} s (seed ${SEED}): ${byStatus}; ${succeeded.size} operations answered 2xx at least once`,
  );
  assert.equal(failures, [], `${failures.length} of ${sent} requests answered 5xx (seed ${SEED}):\n${failures.join('\n')}`);
  // The walk reaches past the refusals: otherwise it would prove nothing about the handlers.
  assert.ok(succeeded.size >= ops.length / 3, `only ${succeeded.size} of ${ops.length} operations ever succeeded`);
});

test.run();
