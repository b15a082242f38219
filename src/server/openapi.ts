import { z } from 'zod';
import { heldRequestAnswerSchema } from '../kernel/approval-hold.js';
import { operationErrors, successStatuses } from './contract.js';
import { errorMessage } from './messages.js';
import type { Operation } from './registry.js';
import type { Services } from './services.js';

type JsonSchema = { [key: string]: any };
type Io = 'input' | 'output';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ 'application/json': { schema } });
const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

/** zod's `z.json()`: a union whose arrays and objects hold the union again (`SELF` stands for the reference). */
const JSON_VALUE = JSON.stringify({
  anyOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'null' },
    { type: 'array', items: { $ref: 'SELF' } },
    { type: 'object', propertyNames: { type: 'string' }, additionalProperties: { $ref: 'SELF' } },
  ],
});
const ANY_JSON_VALUE = { description: 'Any JSON value.' };
const isJsonValue = (part: JsonSchema, selfRef: string) => JSON.stringify(part).replaceAll(`"$ref":"${selfRef}"`, '"$ref":"SELF"') === JSON_VALUE;

/**
 * The document's `components/schemas`. zod writes recursive parts of a schema (trees) as local `$defs` and
 * `$ref`s (`#`, `#/$defs/…`) that point nowhere once the schema sits inside an OpenAPI document: they are
 * hoisted here under names of their own and every reference is rewritten to them. A JSON value (`z.json()`)
 * is written as the empty schema instead: every JSON value fits it, and code generators cannot type the
 * recursive union (openapi-typescript #1603).
 */
class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /** A reference to `schema` kept as the component `name` (converted once, shared by every operation). */
  named(name: string, schema: z.ZodType, io: Io): JsonSchema {
    if (!(name in this.schemas)) {
      const converted = this.convert(schema, io, name);
      if (converted.$ref !== `#/components/schemas/${name}`) this.schemas[name] = converted;
    }
    return ref(name);
  }

  /**
   * `schema`'s `io` side as JSON Schema; `name` names the parts that must become components. Answers
   * (`output`) leave out `additionalProperties: false`: clients must accept fields added later (spec 01 §2.1).
   */
  convert(schema: z.ZodType, io: Io, name: string): JsonSchema {
    const {
      $schema: _dialect,
      $defs = {},
      ...whole
    } = z.toJSONSchema(schema, { io, unrepresentable: 'any', ...(io === 'input' ? { override: stateInputRules } : {}) }) as JsonSchema;
    const root = isJsonValue(whole, '#') ? ANY_JSON_VALUE : whole;
    const local: Record<string, JsonSchema> = {};
    const jsonValues = new Set<string>();
    for (const [key, part] of Object.entries($defs as Record<string, JsonSchema>)) {
      if (isJsonValue(part, `#/$defs/${key}`)) jsonValues.add(key);
      else local[key] = part;
    }
    const selfReferenced = JSON.stringify([root, local]).includes('"$ref":"#"');
    if (selfReferenced) local['#'] = root;
    const names = new Map(Object.keys(local).map((key) => [key, key === '#' ? name : key.startsWith('__') ? `${name}_${key.replace(/\D/g, '') || '0'}` : key]));
    // A name already taken by a different schema gets a suffix; references are rewritten until none clashes.
    for (;;) {
      const rewritten = Object.fromEntries(Object.entries(local).map(([key, part]) => [key, rewrite(part, names, jsonValues, io)]));
      const clash = [...names].find(([key, taken]) => taken in this.schemas && JSON.stringify(this.schemas[taken]) !== JSON.stringify(rewritten[key]));
      if (!clash) {
        for (const [key, part] of Object.entries(rewritten)) this.schemas[names.get(key)!] = part;
        return selfReferenced ? ref(names.get('#')!) : rewrite(root, names, jsonValues, io);
      }
      const used = new Set([...Object.keys(this.schemas), ...names.values()]);
      let n = 2;
      while (used.has(`${clash[1]}_${n}`)) n++;
      names.set(clash[0], `${clash[1]}_${n}`);
    }
  }
}

/**
 * A copy of `node` with local references pointing into `components/schemas` (references to a JSON value
 * dropped: the empty schema is any value) and no `$schema` keys.
 */
function rewrite(node: unknown, names: Map<string, string>, jsonValues: Set<string>, io: Io): any {
  if (Array.isArray(node)) return node.map((item) => rewrite(item, names, jsonValues, io));
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || (io === 'output' && key === 'additionalProperties' && value === false)) continue;
    if (key === '$ref' && typeof value === 'string') {
      const local = value === '#' ? '#' : value.startsWith('#/$defs/') ? value.slice('#/$defs/'.length) : null;
      if (local !== null && jsonValues.has(local)) Object.assign(out, ANY_JSON_VALUE);
      else out.$ref = local !== null && names.has(local) ? `#/components/schemas/${names.get(local)}` : value;
    } else {
      out[key] = rewrite(value, names, jsonValues, io);
    }
  }
  return out;
}

type ZodCheck = { _zod: { def: { check: string; tx?: (value: string) => unknown } } };
type ZodDef = { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType; shape?: Record<string, z.ZodType>; checks?: ZodCheck[] };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (defOf(current).innerType && ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'].includes(defOf(current).type))
    current = defOf(current).innerType!;
  return current;
}

/** Adds `pattern` to a string schema, beside one it may already have. */
function addPattern(jsonSchema: JsonSchema, pattern: string) {
  if (jsonSchema.pattern === pattern) return;
  if ('pattern' in jsonSchema) jsonSchema.allOf = [...(jsonSchema.allOf ?? []), { pattern }];
  else jsonSchema.pattern = pattern;
}

/** Whether a zod string trims its input before its checks (`.trim()`, an overwrite check). */
const trims = (def: ZodDef) => (def.checks ?? []).some(({ _zod }) => _zod.def.check === 'overwrite' && _zod.def.tx?.(' x ') === 'x');

/**
 * Rules zod's input schema leaves out, added to the document as the service enforces them:
 * - a trimmed string's lengths count without surrounding blanks: the document asks for none, so a text
 *   that fits it is the text checked (`' '` meets `minLength: 1` but trims to nothing);
 * - a string transformed (trimmed, hyphens dropped, …) and then checked again, `.transform(…).pipe(z.string()
 *   .regex(…))`: the schema is the first string only, so the document adds what the second demands. Its
 *   pattern and format go to the text as sent (the canonical form, which the transform leaves as it is), and
 *   its maximum length too (a transform that drops characters cannot lengthen the text); a minimum would not
 *   carry over.
 */
function stateInputRules({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: JsonSchema }) {
  const def = defOf(zodSchema as z.ZodType);
  if (def.type === 'string' && trims(def)) addPattern(jsonSchema, '^(?:\\S(?:[\\s\\S]*\\S)?)?$');
  if (def.type !== 'pipe' || jsonSchema.type !== 'string') return;
  const out = unwrapped(def.out!);
  if (defOf(out).type !== 'string') return;
  const checks = z.toJSONSchema(out, { io: 'input' }) as JsonSchema;
  if (checks.pattern) addPattern(jsonSchema, checks.pattern);
  if (checks.format && !jsonSchema.format) jsonSchema.format = checks.format;
  if (checks.maxLength !== undefined) jsonSchema.maxLength = Math.min(jsonSchema.maxLength ?? Infinity, checks.maxLength);
}

/**
 * The item array of a comma-separated query list (a string split into an array by a transform, as
 * `commaList` builds it), or null. zod's JSON Schema shows only the string; the document shows the list.
 */
function commaListArray(schema: z.ZodType): z.ZodType | null {
  const pipe = unwrapped(schema);
  if (defOf(pipe).type !== 'pipe') return null;
  let source = defOf(pipe).in!;
  while (defOf(source).type === 'pipe') source = defOf(source).in!;
  const target = unwrapped(defOf(pipe).out!);
  return defOf(source).type === 'string' && defOf(target).type === 'array' ? target : null;
}

function queryParameters(op: Operation, components: SchemaComponents): unknown[] {
  if (!op.query) return [];
  const schema = components.convert(op.query, 'input', `${pascal(op.operationId)}Query`);
  const shape = defOf(op.query).shape ?? {};
  return Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
    const required = (schema.required as string[] | undefined)?.includes(name) ?? false;
    const list = shape[name] ? commaListArray(shape[name]) : null;
    if (!list) return { name, in: 'query', required, schema: property };
    const items = components.convert(list, 'input', `${pascal(op.operationId)}${pascal(name)}`);
    // An empty value is one empty item on the wire, not an empty list: a list has at least one item.
    const minItems = Math.max(1, items.minItems ?? 0);
    return {
      name,
      in: 'query',
      required,
      style: 'form',
      explode: false,
      schema: { ...items, minItems, ...('default' in property ? { default: property.default } : {}) },
    };
  });
}

function pathParameters(op: Operation, components: SchemaComponents): unknown[] {
  const declared = op.params ? (components.convert(op.params, 'input', `${pascal(op.operationId)}Params`).properties ?? {}) : {};
  return [...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: declared[name] ?? { type: 'string' } }));
}

const writesByToken = (op: Operation) => op.method !== 'GET' && (op.auth === 'account' || op.auth === 'store');
/** An AI agent's request of this operation may be held for a person's approval (202, spec 01 §5.6). */
const mayAwaitApproval = (op: Operation) => op.auth === 'store' && op.method !== 'GET' && (op.agent === 'approval' || typeof op.agent === 'function');

function headerParameters(op: Operation): unknown[] {
  const headers: unknown[] = [];
  if (op.auth === 'store' || op.auth === 'buyer') {
    headers.push({
      name: 'X-Store-Id',
      in: 'header',
      required: true,
      description: 'The store the request acts in: its id or its store code.',
      schema: { type: 'string', minLength: 1 },
    });
  }
  if (writesByToken(op) && op.idempotent !== false) {
    headers.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'A retry with the same key and request returns the first answer.',
      schema: { type: 'string', minLength: 1 },
    });
  }
  if (op.streams) {
    headers.push({
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      description: 'Resume after this message `id`.',
      schema: { type: 'integer', minimum: 1 },
    });
  }
  return headers;
}

function requestBody(op: Operation, components: SchemaComponents) {
  if (op.multipart) {
    return {
      required: true,
      content: { 'multipart/form-data': { schema: components.convert(op.multipart.fields, 'input', `${pascal(op.operationId)}Form`) } },
    };
  }
  if (op.body) return { required: true, content: json(components.convert(op.body, 'input', `${pascal(op.operationId)}Body`)) };
  return undefined;
}

const successEnvelope = (data: JsonSchema) => ({
  type: 'object',
  required: ['meta', 'data', 'error'],
  properties: { meta: ref('SuccessMeta'), data, error: { type: 'null' } },
});

function successResponses(op: Operation, components: SchemaComponents): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  const data = op.response && !op.streams ? components.convert(op.response, 'output', `${pascal(op.operationId)}Data`) : {};
  for (const status of successStatuses(op)) {
    if (op.streams) {
      const message = op.response ? components.named(`${pascal(op.operationId)}Message`, op.response, 'output') : null;
      responses[status] = {
        description:
          'A stream of server-sent events: each message has `id` (the cursor to resume from with `Last-Event-ID`), `event` (its type) and `data` (JSON, the schema in `x-svc-message-data`); comment lines keep the connection alive.',
        content: { [op.streams]: { schema: { type: 'string' }, ...(message ? { 'x-svc-message-data': message } : {}) } },
      };
    } else {
      responses[status] = { description: 'Success', content: json(successEnvelope(data)) };
    }
  }
  if (mayAwaitApproval(op) && !(202 in responses)) {
    responses[202] = {
      description:
        "An AI agent's request held for approval (`meta.code` APPROVAL_REQUIRED); a retry with its Idempotency-Key returns it again, or 200 APPROVAL_ALREADY_DECIDED with the approval request once decided.",
      content: json(successEnvelope(components.named('ApprovalPending', heldRequestAnswerSchema, 'output'))),
    };
  }
  return responses;
}

function errorResponses(op: Operation): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of Object.entries(operationErrors(op)).sort(([a], [b]) => Number(a) - Number(b))) {
    responses[status] = {
      description: codes.map((code) => `\`${code}\`: ${errorMessage(code, Number(status))}`).join('\n\n'),
      ...(status === '401' ? { headers: { 'WWW-Authenticate': { description: 'RFC 6750 bearer challenge', schema: { type: 'string' } } } } : {}),
      ...(status === '429' ? { headers: { 'Retry-After': { description: 'Seconds to wait, when the limit has a window', schema: { type: 'integer' } } } } : {}),
      content: json({
        allOf: [
          ref('ErrorEnvelope'),
          {
            type: 'object',
            required: ['error'],
            properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } } },
          },
        ],
      }),
    };
  }
  return responses;
}

function security(op: Operation) {
  if (op.auth === 'none') return [];
  // A guest uses the buyer API without a token; a member buyer sends one.
  if (op.auth === 'buyer') return [{}, { buyerToken: [] }];
  return [{ bearer: [] }];
}

function description(op: Operation): string | undefined {
  const lines = [
    op.scope ? `Scope \`${op.scope}\`${op.alsoScope ? ` (or \`${op.alsoScope}\`, which it took before)` : ''}.` : null,
    op.roles ? `Roles: ${op.roles.join(', ')}.` : null,
    op.callers ? `Callers: ${op.callers.join(', ')} tokens.` : null,
    op.alternateStatuses?.length ? `Answers ${op.status ?? 200} normally, ${op.alternateStatuses.join(' or ')} in the cases the summary names.` : null,
  ].filter(Boolean);
  return lines.length ? lines.join(' ') : undefined;
}

const meta = (isSuccess: boolean) => ({
  type: 'object',
  required: ['status', 'code', 'message', 'isSuccess'],
  properties: { status: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' }, isSuccess: { type: 'boolean', const: isSuccess } },
});

const ENVELOPE_SCHEMAS = {
  SuccessMeta: meta(true),
  ErrorMeta: meta(false),
  FieldError: {
    type: 'object',
    required: ['field', 'code', 'message'],
    properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
  },
  Error: {
    type: 'object',
    required: ['code', 'message', 'details', 'fieldErrors', 'docs', 'traceId'],
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      details: { type: 'object' },
      fieldErrors: { type: 'array', items: ref('FieldError') },
      docs: { type: 'string', format: 'uri' },
      traceId: { type: 'string' },
    },
  },
  ErrorEnvelope: { type: 'object', required: ['meta', 'data', 'error'], properties: { meta: ref('ErrorMeta'), data: { type: 'null' }, error: ref('Error') } },
};

/**
 * OpenAPI 3.1 of every operation in the registry: generated, so it cannot drift from the routes. Each
 * operation lists its success statuses with the envelope around its `response` schema, and one entry per
 * error status with the codes it can answer (contract.ts, checked against live answers in tests).
 */
export function openApiDocument(services: Services, operations: readonly Operation[]) {
  const components = new SchemaComponents();
  Object.assign(components.schemas, ENVELOPE_SCHEMAS);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const body = requestBody(op, components);
    const notes = description(op);
    paths[op.path] ??= {};
    paths[op.path][op.method.toLowerCase()] = {
      operationId: op.operationId,
      summary: op.summary,
      ...(notes ? { description: notes } : {}),
      tags: [op.tag],
      security: security(op),
      parameters: [...pathParameters(op, components), ...queryParameters(op, components), ...headerParameters(op)],
      ...(body ? { requestBody: body } : {}),
      responses: { ...successResponses(op, components), ...errorResponses(op) },
      'x-svc-scope': op.scope ?? null,
      ...(op.alsoScope ? { 'x-svc-also-scope': op.alsoScope } : {}),
      'x-svc-roles': op.roles ?? null,
      'x-svc-callers': op.callers ?? null,
      'x-svc-agent-policy': typeof op.agent === 'function' ? 'depends-on-request' : (op.agent ?? 'direct'),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc API',
      version: '1',
      description:
        'Administration API (/v1), account API (/auth/v1) and buyer API (/storefront/v1). Every answer is the envelope `{ meta, data, error }`. A write sent with `X-Svc-Dry-Run: 1` runs nothing and answers 200 with a preview (`meta.code` DRY_RUN).',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: services.config.origin }],
    tags: [...new Set(operations.map((op) => op.tag))].sort().map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A login token (OAuth), an account access token or an app installation token.',
        },
        buyerToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A member buyer's token of the store (POST /v1/customers/delegations); guests send none.",
        },
      },
      schemas: components.schemas,
    },
  };
}
