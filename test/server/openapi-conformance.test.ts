/**
 * The OpenAPI document is no looser than the service: requests made from each operation's own parameter
 * and body schemas, and valid by the whole document (checked with ajv, so rules the generator cannot
 * follow — `if`/`then`, `not`, `oneOf` — still hold), are never refused as malformed: no 400
 * VALIDATION_FAILED but for the field codes of BEYOND_THE_DOCUMENT. Other refusals — a missing resource, a
 * state conflict, a role, INVALID_PARAMETER for `to` before `from` (listed for every operation) — are fine.
 * Deterministic (fixed seed); `FUZZ_SEED=n` explores another corner.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { login, startTestService, type TestService } from '../helpers/service.js';
import { operationsOf, refResolver, validRequest, type FuzzOperation, type FuzzRequest } from '../helpers/openapi-fuzz.js';
import { excerpt, knownValues, sendRequest } from '../helpers/openapi-requests.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_128);
/** Requests sent per operation, and how many are generated to find them (more where few are valid by the document). */
const PER_OPERATION = 4;
const CANDIDATES = [40, 400];

/**
 * Field codes no JSON Schema can state, so the document cannot: what the store holds (ids that name
 * nothing, a code already taken, an amount against the product's price), what a look-up finds (a webhook
 * host resolving to a private address), what a file's bytes are, and relations between values (variants'
 * option values among the options', an end before its start).
 */
const BEYOND_THE_DOCUMENT = new Set([
  'NOT_FOUND',
  'UPLOAD_NOT_FOUND',
  'TAKEN',
  'DISCOUNT_TOO_LARGE',
  'BLOCKED_ADDRESS',
  'CONTENT_TYPE_MISMATCH',
  'UNKNOWN_COMBINATION',
  'BEFORE_START',
]);

/**
 * A DUPLICATE among objects (two option axes of one name, two variants of one combination): unique by a
 * key, which JSON Schema cannot state — its `uniqueItems` compares whole items, and every list of plain
 * values the service keeps unique says so.
 */
function duplicateByKey(body: unknown, field: string): boolean {
  let node = body;
  for (const key of field.split('.').filter(Boolean)) {
    if (Array.isArray(node) && node.some((item) => item !== null && typeof item === 'object')) return true;
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  return Array.isArray(node) && node.some((item) => item !== null && typeof item === 'object');
}
const LANES = 4;

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** The owner's login token; renewed when a generated logout ends it. */
let token = '';

const pointer = (...parts: (string | number)[]) => `doc#/${parts.map((p) => String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Whether a generated request is valid by the document: its body, query and path parameters against their schemas there. */
function validator(doc: any) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema(doc, 'doc');
  return (op: FuzzOperation) => {
    const entry = doc.paths[op.path][op.method.toLowerCase()];
    const params = new Map<string, (value: unknown) => boolean>();
    (entry.parameters as { name: string; in: string }[]).forEach((p, i) =>
      params.set(`${p.in} ${p.name}`, ajv.compile({ $ref: pointer('paths', op.path, op.method.toLowerCase(), 'parameters', i, 'schema') })),
    );
    const [type] = Object.keys(entry.requestBody?.content ?? {});
    const body = type ? ajv.compile({ $ref: pointer('paths', op.path, op.method.toLowerCase(), 'requestBody', 'content', type, 'schema') }) : null;
    return (req: FuzzRequest) => {
      const fits = (where: string, values: Record<string, unknown>) =>
        Object.entries(values).every(([name, value]) => value === undefined || (params.get(`${where} ${name}`)?.(value) ?? false));
      if (!fits('path', req.pathParams) || !fits('query', req.query)) return false;
      if (!body || !req.body) return true;
      // A file part is bytes; the document says `format: binary` of a string.
      if ('form' in req.body) return body(Object.fromEntries(Object.entries(req.body.form).map(([k, v]) => [k, v instanceof Uint8Array ? 'file' : v])));
      return 'json' in req.body && body(req.body.json);
    };
  };
}

test('requests valid by the OpenAPI document are never refused as malformed (400 VALIDATION_FAILED)', async () => {
  const doc = await (await fetch(`${svc.url}/v1/openapi.json`)).json();
  const resolve = refResolver(doc);
  const ops = operationsOf(doc);
  const validFor = validator(doc);
  const known = await knownValues(svc);
  token = svc.ownerToken;
  const perOperation = ops.map((op, i) => {
    const valid = validFor(op);
    let requests: FuzzRequest[] = [];
    for (const numRuns of CANDIDATES) {
      if (requests.length < PER_OPERATION)
        requests = fc
          .sample(validRequest(op, resolve, known), { seed: SEED + i, numRuns })
          .filter(valid)
          .slice(0, PER_OPERATION);
    }
    // Operations open without a token (public ones, guest buyers) are called as such.
    return requests.map((req): FuzzRequest => ({ ...req, token: !op.anonymous }));
  });
  const unsampled = ops.filter((_, i) => perOperation[i].length === 0).map((op) => op.operationId);

  const refused: string[] = [];
  let sent = 0;
  const run = async (requests: FuzzRequest[]) => {
    for (const req of requests) {
      const answer = await sendRequest(svc.url, req, { token, storeId: svc.storeId });
      sent++;
      const error =
        answer.status === 400 ? (JSON.parse(answer.text) as { error: { code: string; fieldErrors: { field: string; code: string }[] } }).error : null;
      const body = req.body && 'json' in req.body ? req.body.json : null;
      const beyond = (f: { field: string; code: string }) => BEYOND_THE_DOCUMENT.has(f.code) || (f.code === 'DUPLICATE' && duplicateByKey(body, f.field));
      if (error?.code === 'VALIDATION_FAILED' && !error.fieldErrors.every(beyond)) {
        refused.push(
          [
            `${req.op.operationId}: ${req.op.method} ${excerpt(answer.url, 400)}`,
            ...(answer.sent ? [`  body: ${excerpt(answer.sent, 400)}`] : []),
            `  answer: ${excerpt(answer.text, 500)}`,
          ].join('\n'),
        );
      }
      if (req.token && answer.status === 401) token = await login(svc);
    }
  };
  const queue = [...perOperation];
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await run(next);
    }),
  );
  console.log(`conformance: ${sent} requests over ${ops.length} operations (seed ${SEED}); no valid request generated for: ${unsampled.join(', ') || 'none'}`);
  assert.equal(refused, [], `${refused.length} of ${sent} requests valid by the document were refused as malformed (seed ${SEED}):\n${refused.join('\n')}`);
  // Every operation is reached: an operation whose requests the generator cannot make is not checked at all.
  assert.equal(unsampled, [], 'operations without a request valid by the document');
});

test.run();
