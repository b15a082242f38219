import { heldRequestAnswerSchema } from '../kernel/approval-hold.js';
import { successStatuses } from './contract.js';
import { ENVELOPE_SCHEMAS, ErrorResponses } from './openapi-errors.js';
import { commaListArray, defOf, pascal, ref, SchemaComponents, type JsonSchema } from './openapi-schemas.js';
import { TAG_DESCRIPTIONS } from './openapi-tags.js';
import type { Operation } from './registry.js';
import type { Services } from './services.js';

const json = (schema: unknown) => ({ 'application/json': { schema } });

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
  // X-Store-Id is no parameter: the `storeId` security scheme states it once, so a client sets it once (security()).
  const headers: unknown[] = [];
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

/**
 * Who may call `op`. The store a request acts in (`X-Store-Id`, spec 01 §4) is the `storeId` scheme: declared
 * once in `components/securitySchemes` and required with the token, a generated client sets it once, as it
 * sets the token, instead of passing a header to every call.
 */
function security(op: Operation) {
  if (op.auth === 'none') return [];
  // A guest uses the buyer API without a token; a member buyer sends one.
  if (op.auth === 'buyer') return [{ storeId: [] }, { storeId: [], buyerToken: [] }];
  if (op.auth === 'store') return [{ bearer: [], storeId: [] }];
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

/**
 * OpenAPI 3.1 of every operation in the registry: generated, so it cannot drift from the routes. Each
 * operation lists its success statuses with the envelope around its `response` schema, and one entry per
 * error status with the codes it can answer (contract.ts, checked against live answers in tests).
 */
export function openApiDocument(services: Services, operations: readonly Operation[]) {
  const components = new SchemaComponents();
  Object.assign(components.schemas, ENVELOPE_SCHEMAS);
  const errors = new ErrorResponses(operations);
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
      responses: { ...successResponses(op, components), ...errors.of(op) },
      'x-svc-scope': op.scope ?? null,
      ...(op.alsoScope ? { 'x-svc-also-scope': op.alsoScope } : {}),
      'x-svc-roles': op.roles ?? null,
      'x-svc-callers': op.callers ?? null,
      'x-svc-agent-policy': typeof op.agent === 'function' ? 'depends-on-request' : (op.agent ?? 'direct'),
      ...(op.agentApprovalExemptWhilePrivate ? { 'x-svc-agent-approval-exempt-while-private': true } : {}),
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
    tags: [...new Set(operations.map((op) => op.tag))]
      .sort()
      .map((name) => ({ name, ...(TAG_DESCRIPTIONS[name] ? { description: TAG_DESCRIPTIONS[name] } : {}) })),
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
        storeId: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Store-Id',
          description: 'The store the request acts in: its id or its store code. Store and buyer operations need it with every request.',
        },
      },
      schemas: components.schemas,
      responses: errors.responses,
    },
  };
}
