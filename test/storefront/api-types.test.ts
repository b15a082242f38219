/**
 * The buyer API types of storefront projects (`src/svc-api.d.ts`, src/cli/storefront/api-types.ts): the JSON Schema
 * the OpenAPI document holds becomes TypeScript, and the templates ship the file written from today's document
 * (`SVC_WRITE_TYPES=1` rewrites them after an API change).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiTypes, countOperations, offlineDocument, type OpenApiDocument } from '../../src/cli/storefront/api-types.js';

const templates = join(import.meta.dirname, '..', '..', 'templates', 'storefront');

const tiny: OpenApiDocument = {
  openapi: '3.1.0',
  paths: {
    '/storefront/v1/things/{thingId}': {
      get: {
        operationId: 'getThing',
        summary: 'One thing',
        parameters: [
          { name: 'thingId', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'page', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          200: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    meta: { $ref: '#/components/schemas/Meta' },
                    data: {
                      type: 'object',
                      required: ['id', 'tags', 'kind', 'lines', 'price'],
                      properties: {
                        id: { type: 'string', description: 'The id' },
                        tags: { type: 'array', items: { type: 'string' } },
                        kind: { type: 'string', enum: ['A', 'B'] },
                        price: { type: ['integer', 'null'] },
                        lines: {
                          type: 'array',
                          items: {
                            anyOf: [
                              { type: 'object', required: ['ok'], properties: { ok: { const: true } } },
                              { type: 'object', required: ['ok'], properties: { ok: { const: false } } },
                            ],
                          },
                        },
                        extra: { type: 'object', additionalProperties: { type: 'number' } },
                        'odd-name': { type: 'boolean' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      delete: { operationId: 'removeThing', responses: { 204: {} } },
    },
    '/v1/admin-only': { get: { operationId: 'adminOnly', responses: {} } },
  },
  components: { schemas: { Meta: { type: 'object', required: ['status'], properties: { status: { type: 'integer' } } } } },
};

test('JSON Schema becomes TypeScript: objects, optional keys, enums, nullable types, unions inside arrays, maps', () => {
  const text = apiTypes(tiny);
  assert.match(text, "path: '/storefront/v1/things/{thingId}';");
  assert.match(text, /pathParams: \{\n\s+thingId: string;\n\s+\};/);
  assert.match(text, /query: \{\n\s+page\?: number;\n\s+\};/);
  assert.match(text, '/** The id */');
  assert.match(text, 'tags: string[];');
  assert.match(text, "kind: 'A' | 'B';");
  assert.match(text, 'price: number | null;');
  assert.match(text, /lines: \(\{\n\s+ok: true;\n\s+\} \| \{\n\s+ok: false;\n\s+\}\)\[\];/, 'a union is parenthesized inside an array');
  assert.match(text, /extra\?: \{\n\s+\[key: string\]: number;\n\s+\};/);
  assert.match(text, "'odd-name'?: boolean;");
  assert.match(text, /removeThing: \{[^]*?data: null;/, 'an answer without a body');
  assert.match(text, /Meta: \{\n\s+status: number;\n\s+\};/, 'component schemas');
  assert.not.match(text, 'adminOnly', 'only the buyer API');
  assert.match(text, "export type Data<Id extends OperationId> = operations[Id]['data'];");
  assert.is(countOperations(tiny), 2);
});

test("the templates ship the types written from the service's document of today", async () => {
  const current = apiTypes(await offlineDocument());
  for (const template of ['basic', 'stay']) {
    const file = join(templates, template, 'src', 'svc-api.d.ts');
    if (process.env.SVC_WRITE_TYPES === '1') writeFileSync(file, current);
    assert.is(readFileSync(file, 'utf8'), current, `stale ${file}: run SVC_WRITE_TYPES=1 node --import tsx test/storefront/api-types.test.ts`);
  }
});

test.run();
