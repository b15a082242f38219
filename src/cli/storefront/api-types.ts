/**
 * `src/svc-api.d.ts` of a storefront project: the buyer API's types (`/storefront/v1`) written from the service's
 * OpenAPI document, so a template's code names what the service answers instead of a hand-kept copy. Written by
 * `svc storefront init` and `svc storefront types` (from a server's `GET /v1/openapi.json`, or this package's own
 * document built offline).
 *
 * The document is OpenAPI 3.1 whose schemas are JSON Schema made by zod: this covers what that emits (`type`, also
 * as a list; `properties`/`required`; `additionalProperties`; `items`/`prefixItems`; `enum`; `const`; `anyOf`,
 * `oneOf`, `allOf`; `$ref` to `components.schemas`). Anything else is `unknown`.
 */

/** The file `svc storefront init` writes and `svc storefront types` rewrites, relative to the project. */
export const API_TYPES_FILE = 'src/svc-api.d.ts';
/** Which paths of the document the file covers: what a storefront calls (the sandbox's fetch reaches only these). */
export const BUYER_API_PREFIX = '/storefront/v1/';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface Operation {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
export interface OpenApiDocument {
  openapi: string;
  info?: { title?: string; version?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; responses?: Record<string, unknown> };
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const REF = /^#\/components\/schemas\/(.+)$/;

const key = (name: string) => (IDENTIFIER.test(name) ? name : `'${name.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`);
const literal = (value: Json) => (typeof value === 'string' ? `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'` : JSON.stringify(value));
const isObject = (value: Json | undefined): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);
const doc = (text: Json | undefined, pad: string) =>
  typeof text === 'string' && text.trim() ? `${pad}/** ${text.trim().replaceAll('*/', '*\\/').split('\n').join(`\n${pad} * `)} */\n` : '';

class Printer {
  /** Component schemas to print (after the operations), with those they refer to in turn. */
  readonly refs = new Set<string>();

  constructor(private readonly components: Record<string, Schema>) {}

  type(schema: Json | undefined, pad: string): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (!isObject(schema)) return 'unknown';
    if (typeof schema.$ref === 'string') {
      const name = REF.exec(schema.$ref)?.[1];
      if (!name || !(name in this.components)) return 'unknown';
      this.refs.add(name);
      return `components['schemas'][${literal(name)}]`;
    }
    if ('const' in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) return this.union(schema.enum.map(literal));
    for (const combinator of ['anyOf', 'oneOf'] as const) {
      const list = schema[combinator];
      if (Array.isArray(list)) return this.union(list.map((s) => this.type(s, pad)));
    }
    if (Array.isArray(schema.allOf)) return schema.allOf.map((s) => this.wrap(this.type(s, pad))).join(' & ') || 'unknown';
    if (Array.isArray(schema.type)) return this.union(schema.type.map((t) => this.type({ ...schema, type: t }, pad)));
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array': {
        if (Array.isArray(schema.prefixItems)) return `[${schema.prefixItems.map((s) => this.type(s, pad)).join(', ')}]`;
        return `${this.wrap(this.type(schema.items, pad))}[]`;
      }
      case 'object':
        return this.object(schema, pad);
      default:
        return isObject(schema.properties) ? this.object(schema, pad) : 'unknown';
    }
  }

  object(schema: Schema, pad: string): string {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    const inner = `${pad}  `;
    const lines = Object.entries(properties).map(
      ([name, s]) => `${doc(isObject(s) ? s.description : undefined, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${this.type(s, inner)};\n`,
    );
    const extra = schema.additionalProperties;
    if (isObject(extra) && Object.keys(extra).length > 0) lines.push(`${inner}[key: string]: ${this.type(extra, inner)};\n`);
    else if (lines.length === 0 && extra !== false) return 'Record<string, unknown>';
    return lines.length ? `{\n${lines.join('')}${pad}}` : 'Record<string, never>';
  }

  union(types: string[]): string {
    const unique = [...new Set(types)];
    return unique.length ? unique.map((t) => this.wrap(t)).join(' | ') : 'never';
  }

  /** Parenthesizes a union or intersection used as an array element or in another combination. */
  wrap(type: string): string {
    let depth = 0;
    let quoted = false;
    for (let i = 0; i < type.length; i++) {
      const c = type[i];
      if (quoted) {
        if (c === '\\') i++;
        else if (c === "'") quoted = false;
      } else if (c === '/' && type[i + 1] === '*') i = type.indexOf('*/', i + 2) + 1;
      else if (c === "'") quoted = true;
      else if ('{[(<'.includes(c)) depth++;
      else if ('}])>'.includes(c)) depth--;
      else if (depth === 0 && (c === '|' || c === '&')) return `(${type})`;
    }
    return type;
  }
}

/** The `data` of an operation's success answers (the envelope `{ meta, data, error }` opened), `null` without a body. */
function dataOf(op: Operation, printer: Printer, pad: string): string {
  const types: string[] = [];
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!/^2\d\d$/.test(status)) continue;
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      types.push('null');
      continue;
    }
    const envelope = isObject(schema.properties) && 'data' in schema.properties ? schema.properties.data : undefined;
    types.push(envelope === undefined ? printer.type(schema, pad) : printer.type(envelope, pad));
  }
  return printer.union(types);
}

function parametersOf(op: Operation, where: 'path' | 'query', printer: Printer, pad: string): string {
  const list = (op.parameters ?? []).filter((p) => p.in === where);
  if (list.length === 0) return 'Record<string, never>';
  const inner = `${pad}  `;
  return `{\n${list.map((p) => `${doc(p.description ?? p.schema?.description, inner)}${inner}${key(p.name)}${p.required ? '' : '?'}: ${printer.type(p.schema, inner)};\n`).join('')}${pad}}`;
}

function bodyOf(op: Operation, printer: Printer, pad: string): string {
  const content = op.requestBody?.content;
  if (!content) return 'never';
  const schema = content['application/json']?.schema ?? Object.values(content)[0]?.schema;
  return printer.type(schema, pad);
}

/** The component schemas `node` refers to, through shared responses (`#/components/responses/…`) too. */
function schemasNamedIn(node: unknown, document: OpenApiDocument, names = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) schemasNamedIn(item, document, names);
  else if (node !== null && typeof node === 'object') {
    for (const [field, value] of Object.entries(node)) {
      const response = field === '$ref' && typeof value === 'string' ? /^#\/components\/responses\/(.+)$/.exec(value)?.[1] : undefined;
      if (response) schemasNamedIn(document.components?.responses?.[response], document, names);
      else if (field === '$ref' && typeof value === 'string' && REF.test(value)) names.add(REF.exec(value)![1]);
      else schemasNamedIn(value, document, names);
    }
  }
  return names;
}

/**
 * The text of `svc-api.d.ts` for the operations under `prefix` (default the buyer API): `operations` keyed by
 * operationId (method, path, path and query parameters, body, and the success answer's `data`), `paths` by path
 * and method, the component schemas they use, and the helpers `Data<'operationId'>`, `Body<…>`, `Query<…>`.
 */
export function apiTypes(document: OpenApiDocument, options: { prefix?: string; source?: string } = {}): string {
  const prefix = options.prefix ?? BUYER_API_PREFIX;
  const printer = new Printer(document.components?.schemas ?? {});
  const operations: string[] = [];
  const paths: string[] = [];
  for (const path of Object.keys(document.paths)
    .filter((p) => p.startsWith(prefix))
    .sort()) {
    const entries: string[] = [];
    for (const method of METHODS) {
      const op = document.paths[path][method];
      if (!op) continue;
      const pad = '    ';
      operations.push(
        `${doc(op.summary, '  ')}  ${key(op.operationId)}: {\n` +
          `${pad}method: '${method.toUpperCase()}';\n` +
          `${pad}path: ${literal(path)};\n` +
          `${pad}pathParams: ${parametersOf(op, 'path', printer, pad)};\n` +
          `${pad}query: ${parametersOf(op, 'query', printer, pad)};\n` +
          `${pad}body: ${bodyOf(op, printer, pad)};\n` +
          `${pad}data: ${dataOf(op, printer, pad)};\n` +
          `  };\n`,
      );
      entries.push(`    ${method}: operations[${literal(op.operationId)}];\n`);
    }
    if (entries.length) paths.push(`  ${literal(path)}: {\n${entries.join('')}  };\n`);
  }
  // The component schemas these operations name anywhere (the envelope's parts, e.g. FieldError, among them), and
  // any they refer to: not the administration API's.
  for (const path of Object.keys(document.paths).filter((p) => p.startsWith(prefix)))
    for (const name of schemasNamedIn(document.paths[path], document)) printer.refs.add(name);
  const schemas = new Map<string, string>();
  for (let missing = [...printer.refs]; missing.length; missing = [...printer.refs].filter((n) => !schemas.has(n))) {
    for (const name of missing) schemas.set(name, printer.type(document.components!.schemas![name], '    '));
  }
  const components = [...schemas.keys()]
    .sort()
    .map((name) => `    ${key(name)}: ${schemas.get(name)};\n`)
    .join('');
  const version = [document.info?.title, document.info?.version && `version ${document.info.version}`].filter(Boolean).join(', ');
  return [
    '// Generated by `svc storefront types` — do not edit: run it again after the service changes.',
    `// From the OpenAPI ${document.openapi} document ${options.source ? `of ${options.source}` : 'built into the svc CLI'}${version ? ` (${version})` : ''}, paths under ${prefix}.`,
    '',
    '/** Each operation by operationId: method, path, parameters, request body and the `data` of its success answer. */',
    `export interface operations {\n${operations.join('')}}`,
    '',
    '/** The operations by path and method. */',
    `export interface paths {\n${paths.join('')}}`,
    '',
    `export interface components {\n  schemas: {\n${components}  };\n}`,
    '',
    'export type OperationId = keyof operations;',
    "/** What an operation answers: the envelope's `data`. */",
    "export type Data<Id extends OperationId> = operations[Id]['data'];",
    '/** What an operation takes as its JSON body. */',
    "export type Body<Id extends OperationId> = operations[Id]['body'];",
    "/** An operation's query parameters. */",
    "export type Query<Id extends OperationId> = operations[Id]['query'];",
    "/** An operation's path parameters. */",
    "export type PathParams<Id extends OperationId> = operations[Id]['pathParams'];",
    '',
  ].join('\n');
}

/** How many operations `apiTypes` writes for the document (those under `prefix`). */
export function countOperations(document: OpenApiDocument, prefix = BUYER_API_PREFIX): number {
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith(prefix))
    .reduce((n, [, ops]) => n + METHODS.filter((m) => ops[m]).length, 0);
}

/** This package's own OpenAPI document, built without a server (what `GET /v1/openapi.json` answers). */
export async function offlineDocument(): Promise<OpenApiDocument> {
  const [{ openApiDocument }, { operations }] = await Promise.all([import('../../server/openapi.js'), import('../../server/modules.js')]);
  const services = { config: { origin: 'http://127.0.0.1:8787' } } as unknown as Parameters<typeof openApiDocument>[0];
  return JSON.parse(JSON.stringify(openApiDocument(services, operations))) as OpenApiDocument;
}
