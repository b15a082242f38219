import { z } from 'zod';
import { ApiError } from './errors.js';
import type { Operation } from './registry.js';

/**
 * Whether answers are checked against what their operation declares (the test suite sets
 * `SVC_CHECK_RESPONSES=1`, so every request of every test is also a contract test). Off in real use: the
 * hot path never runs a schema.
 */
export const checkingContracts = process.env.SVC_CHECK_RESPONSES === '1';

type Codes = Readonly<Partial<Record<number, readonly string[]>>>;

const ANY_REQUEST: Codes = {
  // INVALID_PARAMETER: a well-formed value the request schemas reject by meaning (a date that does not exist).
  400: ['VALIDATION_FAILED', 'INVALID_PARAMETER'],
  413: ['PAYLOAD_TOO_LARGE'],
  // The address and headers together past 16 KB (request-guard.ts), answered before any route.
  414: ['URI_TOO_LONG'],
  415: ['UNSUPPORTED_MEDIA_TYPE'],
  431: ['REQUEST_HEADERS_TOO_LARGE'],
  500: ['INTERNAL_ERROR'],
};
const TOKEN: Codes = {
  401: ['UNAUTHORIZED', 'TOKEN_REVOKED', 'TOKEN_TYPE_RETIRED'],
  403: ['INSUFFICIENT_SCOPE', 'INSUFFICIENT_ROLE', 'AGENT_OPERATION_DENIED'],
};
const STORE: Codes = {
  400: ['STORE_ID_REQUIRED'],
  403: ['STORE_NOT_GRANTED', 'NOT_A_MEMBER'],
  404: ['STORE_NOT_FOUND'],
  429: ['PLAN_AI_ACTIONS_EXCEEDED'],
};
const BUYER: Codes = {
  400: ['STORE_ID_REQUIRED'],
  401: ['UNAUTHORIZED', 'TOKEN_REVOKED'],
  404: ['STORE_NOT_FOUND'],
};
const IDEMPOTENT_WRITE: Codes = { 409: ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'] };
const FRESH_LOGIN: Codes = { 403: ['LOGIN_TOO_OLD'] };

/** Error codes by status of several sets in one (an operation's `errors` from the sets of the rules it runs). */
export function mergeErrors(...sets: Codes[]): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const set of sets) {
    for (const [status, codes] of Object.entries(set)) out[Number(status)] = [...new Set([...(out[Number(status)] ?? []), ...(codes ?? [])])];
  }
  return out;
}

const errorsByOperation = new WeakMap<Operation, Record<number, string[]>>();

/**
 * Every error an operation can answer with, by status: the ones the pipeline gives every operation of its
 * kind (authentication, store, body, idempotency) and the operation's own `errors`.
 */
export function operationErrors(op: Operation): Record<number, string[]> {
  let errors = errorsByOperation.get(op);
  if (!errors) {
    const tokenKinds = op.auth === 'account' || op.auth === 'store';
    const idempotent = op.method !== 'GET' && tokenKinds && op.idempotent !== false;
    errors = mergeErrors(
      ANY_REQUEST,
      tokenKinds ? TOKEN : {},
      op.auth === 'store' ? STORE : {},
      op.auth === 'buyer' ? BUYER : {},
      idempotent ? IDEMPOTENT_WRITE : {},
      op.freshLoginSeconds ? FRESH_LOGIN : {},
      op.errors ?? {},
    );
    errorsByOperation.set(op, errors);
  }
  return errors;
}

/** The success statuses an operation answers with. */
export const successStatuses = (op: Operation) => [op.status ?? 200, ...(op.alternateStatuses ?? [])];

type JsonSchema = { [key: string]: any };
const outputSchemas = new WeakMap<z.ZodType, JsonSchema>();
const outputSchema = (schema: z.ZodType) => {
  let json = outputSchemas.get(schema);
  if (!json) outputSchemas.set(schema, (json = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema));
  return json;
};

/**
 * Object fields in `value` that `schema` does not declare (zod parsing strips them silently, so a field
 * the document forgot would otherwise pass). `anyOf`: a value fits when some branch declares all its fields.
 */
function undeclaredFields(schema: JsonSchema, value: unknown, path: string, root: JsonSchema): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (typeof schema.$ref === 'string') return undeclaredFields(resolveRef(root, schema.$ref), value, path, root);
  const branches: JsonSchema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const results = branches.map((branch) => undeclaredFields(branch, value, path, root));
    return results.find((r) => r.length === 0) ?? results.sort((a, b) => a.length - b.length)[0] ?? [];
  }
  if (schema.allOf) return (schema.allOf as JsonSchema[]).flatMap((part) => undeclaredFields(part, value, path, root));
  if (Array.isArray(value)) {
    const items = schema.items ?? (schema.prefixItems ? undefined : {});
    return value.flatMap((item, i) => undeclaredFields(Array.isArray(schema.prefixItems) ? (schema.prefixItems[i] ?? {}) : items, item, `${path}[${i}]`, root));
  }
  const properties: JsonSchema = schema.properties ?? {};
  const extra = schema.additionalProperties;
  return Object.entries(value).flatMap(([key, field]) => {
    const at = path ? `${path}.${key}` : key;
    if (key in properties) return undeclaredFields(properties[key], field, at, root);
    if (extra && typeof extra === 'object') return undeclaredFields(extra, field, at, root);
    return extra === true || (extra === undefined && !schema.properties) ? [] : [at];
  });
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  if (ref === '#') return root;
  return (
    ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<JsonSchema>((node, part) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], root) ?? {}
  );
}

const violation = (op: Operation, problem: string, details: Record<string, unknown>) => {
  // Printed as well: a test that expected another status still shows why in its output.
  console.error(`response contract of ${op.operationId}: ${problem}`, JSON.stringify(details));
  return new ApiError(500, 'RESPONSE_CONTRACT_VIOLATION', { operationId: op.operationId, problem, ...details });
};

/**
 * A success answer against the operation's `status` and `response` schema (after a JSON round trip, as a
 * client sees it). Operations without a declared contract are left alone here; the OpenAPI test requires one.
 */
export function checkSuccess(op: Operation, status: number, data: unknown): void {
  if (!op.response) return;
  if (!successStatuses(op).includes(status)) throw violation(op, `status ${status} is not declared`, { declared: successStatuses(op) });
  const seen = data === undefined ? null : JSON.parse(JSON.stringify(data));
  const parsed = op.response.safeParse(seen);
  if (!parsed.success) throw violation(op, 'data does not match the response schema', { issues: parsed.error.issues.slice(0, 5) });
  const undeclared = undeclaredFields(outputSchema(op.response), seen, '', outputSchema(op.response));
  if (undeclared.length > 0) throw violation(op, 'data has fields the response schema does not declare', { fields: undeclared.slice(0, 10) });
}

/** An error answer against the codes the operation declares for its status. */
export function checkError(op: Operation, err: ApiError): ApiError {
  if (!op.response || err.code === 'RESPONSE_CONTRACT_VIOLATION') return err;
  if (operationErrors(op)[err.status]?.includes(err.code)) return err;
  return violation(op, `error ${err.status} ${err.code} is not declared`, { declared: operationErrors(op) });
}
