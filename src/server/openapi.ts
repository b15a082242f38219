import { z } from 'zod';
import type { Operation } from './registry.js';
import type { Services } from './services.js';

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

const envelope = {
  type: 'object',
  properties: {
    meta: {
      type: 'object',
      properties: { status: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' }, isSuccess: { type: 'boolean' } },
      required: ['status', 'code', 'message', 'isSuccess'],
    },
    data: {},
    error: {
      type: ['object', 'null'],
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object' },
        fieldErrors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } } },
        docs: { type: 'string' },
        traceId: { type: 'string' },
      },
    },
  },
};

/** OpenAPI 3.1 of every operation in the registry: generated, so it cannot drift from the routes. */
export function openApiDocument(services: Services, operations: readonly Operation[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const parameters: unknown[] = [];
    for (const match of op.path.matchAll(/\{(\w+)\}/g)) parameters.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
    if (op.auth === 'store' || op.auth === 'buyer') parameters.push({ name: 'X-Store-Id', in: 'header', required: true, schema: { type: 'string' } });
    if (op.query) {
      const schema = jsonSchema(op.query) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        parameters.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: prop });
      }
    }
    if (op.method !== 'GET' && (op.auth === 'account' || op.auth === 'store') && op.idempotent !== false) {
      parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } });
    }
    paths[op.path] ??= {};
    paths[op.path][op.method.toLowerCase()] = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      security: op.auth === 'none' ? [] : op.auth === 'buyer' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      parameters,
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
      responses: {
        [String(op.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } } },
        default: { description: 'Error (envelope with `error`)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } } },
      },
      'x-svc-scope': op.scope ?? null,
      'x-svc-roles': op.roles ?? null,
      'x-svc-callers': op.callers ?? null,
      'x-svc-agent-policy': typeof op.agent === 'function' ? 'depends-on-request' : (op.agent ?? 'direct'),
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc API', version: '1', description: 'Administration API (/v1), account API (/auth/v1) and buyer API (/storefront/v1).' },
    servers: [{ url: services.config.origin }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Envelope: envelope },
    },
  };
}
