/**
 * Requests generated from an OpenAPI 3.1 document: values from each operation's own parameter and body
 * schemas (JSON Schema → fast-check arbitraries, hand-rolled for the subset zod emits), and mutations of
 * them (huge numbers, lone surrogates, 5,000-character strings, nulls, 120-element arrays, wrong types,
 * dates that name no day, bodies that are not objects). Deterministic for a given seed.
 */
import fc from 'fast-check';

type Schema = { [key: string]: any };

export interface FuzzOperation {
  operationId: string;
  method: string;
  path: string;
  /** Whether the operation can be called without a token (`security` lists a requirement with no token scheme). */
  anonymous: boolean;
  pathParams: { name: string; schema: Schema }[];
  query: { name: string; required: boolean; schema: Schema }[];
  headers: { name: string; required: boolean; schema: Schema }[];
  body: { type: 'json' | 'form'; required: boolean; schema: Schema } | null;
}

/** A value as it goes on the wire: `raw` text is put into a path or query as is (already percent-encoded). */
export type Wire = { raw: string };
const isWire = (v: unknown): v is Wire => typeof v === 'object' && v !== null && 'raw' in v && Object.keys(v).length === 1;

export interface FuzzRequest {
  op: FuzzOperation;
  /** What made it: `generated`, `anonymous` or the mutation's name. */
  kind: string;
  pathParams: Record<string, unknown>;
  query: Record<string, unknown>;
  /** JSON value, or a body sent as is with its content type. */
  body: { json: unknown } | { text: string; type: string } | { form: Record<string, unknown> } | null;
  token: boolean;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Follows `$ref`s (any local JSON pointer: `#/components/schemas/…`, `#/components/parameters/…`, `#/$defs/…`). */
export function refResolver(doc: Schema) {
  const pointer = (ref: string) =>
    ref
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .reduce<Schema | undefined>((node, part) => node?.[decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  return function resolve(schema: Schema | undefined): Schema {
    let node = schema ?? {};
    for (let hops = 0; typeof node.$ref === 'string' && hops < 20; hops++) {
      const { $ref, ...siblings } = node;
      node = { ...pointer($ref), ...siblings };
    }
    return node;
  };
}

/** Every operation of the document, read defensively (refs resolved, unknown shapes skipped). */
export function operationsOf(doc: Schema): FuzzOperation[] {
  const resolve = refResolver(doc);
  const schemes: Schema = doc.components?.securitySchemes ?? {};
  // An API key (X-Store-Id, the store a request acts in) is no token: a requirement of API keys only is anonymous.
  const tokenFree = (requirement: Schema) => Object.keys(requirement).every((name) => schemes[name]?.type === 'apiKey');
  /** The header API keys a requirement asks for, as the required headers they are on the wire. */
  const keyHeaders = (security: Schema[]) => [
    ...new Map(
      security
        .flatMap((requirement) => Object.keys(requirement).map((name) => schemes[name]))
        .filter((scheme) => scheme?.type === 'apiKey' && scheme.in === 'header')
        .map((scheme) => [scheme.name, { name: scheme.name, required: true, schema: { type: 'string' } }]),
    ).values(),
  ];
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    const shared: Schema[] = (item.parameters ?? []).map(resolve);
    for (const method of METHODS) {
      if (!item[method]) continue;
      const op = resolve(item[method]);
      const params = new Map<string, Schema>();
      for (const p of [...shared, ...(op.parameters ?? []).map(resolve)]) params.set(`${p.in} ${p.name}`, p);
      const all = [...params.values()];
      const security: Schema[] | undefined = op.security ?? doc.security;
      const requestBody = op.requestBody ? resolve(op.requestBody) : null;
      const content: Schema = requestBody?.content ?? {};
      const jsonType = Object.keys(content).find((t) => /json/i.test(t));
      const formType = Object.keys(content).find((t) => /multipart\/form-data/i.test(t));
      out.push({
        operationId: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        anonymous: !security || security.length === 0 || security.some(tokenFree),
        pathParams: all.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: resolve(p.schema) })),
        query: all.filter((p) => p.in === 'query').map((p) => ({ name: p.name, required: Boolean(p.required), schema: resolve(p.schema) })),
        headers: [
          ...all.filter((p) => p.in === 'header').map((p) => ({ name: p.name, required: Boolean(p.required), schema: resolve(p.schema) })),
          ...keyHeaders(security ?? []),
        ],
        body: jsonType
          ? { type: 'json', required: Boolean(requestBody?.required), schema: resolve(content[jsonType].schema) }
          : formType
            ? { type: 'form', required: Boolean(requestBody?.required), schema: resolve(content[formType].schema) }
            : null,
      });
    }
  }
  return out;
}

const INT32 = 2 ** 31 - 1;
const DAY = 86_400_000;
const ymd = (d: Date) => d.toISOString().slice(0, 10);
const dates = fc.integer({ min: Date.UTC(2020, 0, 1) / DAY, max: Date.UTC(2031, 0, 1) / DAY }).map((d) => new Date(d * DAY));

/**
 * An arbitrary of the values a JSON Schema accepts (as far as this subset goes: types, enums, consts,
 * bounds, patterns, formats, anyOf/oneOf/allOf, objects and arrays). `full` puts every optional property
 * in, so a mutation can reach each field.
 */
export function arbitraryOf(schemaIn: Schema | boolean | undefined, resolve: (s: Schema) => Schema, full = false, depth = 0): fc.Arbitrary<unknown> {
  if (schemaIn === true || schemaIn === undefined) return fc.jsonValue({ maxDepth: 2 });
  if (schemaIn === false) return fc.constant(null);
  const schema = resolve(schemaIn);
  const next = (s: Schema | boolean | undefined) => arbitraryOf(s, resolve, full, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches?.length) {
    // A branch may only add what is required (`oneOf` of `required` sets): the object's own stay required.
    const required = (b: Schema) => [...new Set([...(schema.required ?? []), ...(b.required ?? [])])];
    return fc.oneof(
      ...branches
        .map((b) => resolve(b))
        .map((b) => next({ ...schema, anyOf: undefined, oneOf: undefined, ...b, ...(schema.required || b.required ? { required: required(b) } : {}) })),
    );
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = schema.allOf.map(resolve);
    const merged = parts.reduce<Schema>(
      (acc, part) => ({
        ...acc,
        ...part,
        properties: { ...acc.properties, ...part.properties },
        required: [...(acc.required ?? []), ...(part.required ?? [])],
      }),
      { ...schema, allOf: undefined },
    );
    return next(merged);
  }
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : schema.items ? ['array'] : null;
  if (!type) return fc.jsonValue({ maxDepth: 2 });
  if (type.length > 1) return fc.oneof(...type.map((t: string) => next({ ...schema, type: t })));
  switch (type[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number': {
      const lower = Math.max(schema.minimum ?? (schema.exclusiveMinimum ?? -INT32 - 1) + 1, -INT32);
      const upper = Math.min(schema.maximum ?? (schema.exclusiveMaximum ?? INT32 + 1) - 1, INT32);
      if (lower > upper) return fc.constant(schema.minimum ?? schema.maximum ?? 0);
      if (schema.multipleOf) {
        const m = schema.multipleOf;
        return fc.integer({ min: Math.ceil(lower / m), max: Math.floor(upper / m) }).map((k) => k * m);
      }
      if (type[0] === 'number')
        return fc.oneof(
          fc.integer({ min: Math.ceil(lower), max: Math.floor(upper) }),
          fc.double({ min: lower, max: upper, noNaN: true, noDefaultInfinity: true }),
        );
      // Small values near the bounds are where the rules are; the rest spreads over the whole range.
      return fc.oneof(
        fc.integer({ min: lower, max: Math.min(upper, lower + 20) }),
        fc.integer({ min: Math.max(lower, upper - 20), max: upper }),
        fc.integer({ min: lower, max: upper }),
      );
    }
    case 'string':
      return stringOf(schema);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, minLength + 3));
      if (Array.isArray(schema.prefixItems)) return fc.tuple(...schema.prefixItems.map(next));
      const items = next(schema.items);
      return schema.uniqueItems
        ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
        : fc.array(items, { minLength, maxLength });
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      // Deep in a recursive schema only what is required goes on, so generation ends.
      const keys = Object.keys(properties).filter((k) => depth < 6 || required.includes(k));
      const model = Object.fromEntries(keys.map((k) => [k, next(properties[k])]));
      const record = fc.record(model, { requiredKeys: full ? keys : required.filter((k) => keys.includes(k)) });
      const extra = schema.additionalProperties;
      if (!schema.properties && extra && typeof extra === 'object')
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), next(extra), { maxKeys: 3 });
      return record;
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/**
 * The schema's `pattern` as a RegExp (JSON Schema patterns are ECMA-262 with Unicode semantics), and a
 * looser one fast-check can generate from: its look-arounds dropped, the strings then checked against the
 * whole pattern.
 */
function patternOf(schema: Schema): { whole: RegExp; generated: RegExp } | null {
  if (typeof schema.pattern !== 'string') return null;
  try {
    const whole = new RegExp(schema.pattern, 'u');
    return { whole, generated: new RegExp(schema.pattern.replace(/\(\?<?[=!](?:[^()\\]|\\.)*\)/g, ''), 'u') };
  } catch {
    return null;
  }
}

function stringOf(schema: Schema): fc.Arbitrary<unknown> {
  const pattern = patternOf(schema);
  const fits = (s: string) => (!pattern || pattern.whole.test(s)) && s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity);
  switch (schema.format) {
    // A file of a multipart form: bytes, sent as a file part.
    case 'binary':
      return fc.uint8Array({ minLength: 1, maxLength: 64 });
    case 'date':
      return dates.map(ymd).filter(fits);
    case 'date-time':
      return fc
        .tuple(dates, fc.integer({ min: 0, max: DAY - 1 }))
        .map(([d, ms]) => new Date(d.getTime() + ms).toISOString())
        .filter(fits);
    // fast-check's own e-mail and URL arbitraries cost seconds a sample on large schemas: small ones do.
    case 'email':
      return fc
        .tuple(fc.stringMatching(/^[a-z0-9]{1,6}(?:[._+-][a-z0-9]{1,6}){0,2}$/), fc.constantFrom('example.com', 'example.co.kr', 'svc.local'))
        .map(([local, domain]) => `${local}@${domain}`)
        .filter(fits);
    case 'uri':
    case 'url':
      return fc
        .tuple(
          fc.constantFrom('https', 'http'),
          fc.constantFrom('shop.example.com', 'example.org', '127.0.0.1', 'localhost:5173', '[::1]'),
          fc.stringMatching(/^(\/[a-z0-9]{1,8}){0,2}$/),
        )
        .map(([scheme, host, path]) => `${scheme}://${host}${path}`)
        .filter(fits);
    case 'uuid':
      return fc.uuid().filter(fits);
  }
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 24, minLength + 24));
  if (pattern) {
    try {
      return fc.stringMatching(pattern.generated).filter(fits);
    } catch {
      // A pattern fast-check cannot read is fuzzed like free text.
    }
  }
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: 'grapheme' }));
}

/** Values of the known resources of the store (real ids reach past the 404 into the handlers). */
export type KnownValues = Record<string, readonly string[]>;

/** Requests valid by the document (as far as it tells). */
export function validRequest(op: FuzzOperation, resolve: (s: Schema) => Schema, known: KnownValues, full = false): fc.Arbitrary<FuzzRequest> {
  const pathParams = fc.record(
    Object.fromEntries(
      op.pathParams.map((p) => {
        const generated = arbitraryOf(p.schema, resolve);
        return [
          p.name,
          known[p.name]?.length ? fc.oneof({ arbitrary: fc.constantFrom(...known[p.name]), weight: 3 }, { arbitrary: generated, weight: 1 }) : generated,
        ];
      }),
    ),
  );
  const query = fc.record(
    Object.fromEntries(op.query.map((p) => [p.name, known[p.name]?.length ? fc.constantFrom(...known[p.name]) : arbitraryOf(p.schema, resolve, full)])),
    { requiredKeys: op.query.filter((p) => full || p.required).map((p) => p.name) },
  );
  const body: fc.Arbitrary<FuzzRequest['body']> = !op.body
    ? fc.constant(null)
    : op.body.type === 'form'
      ? fc.record({ form: arbitraryOf(op.body.schema, resolve, full).map((v) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {})) })
      : fc.record({ json: arbitraryOf(op.body.schema, resolve, full) });
  return fc.record({ pathParams, query, body }).map((parts) => ({ op, kind: 'generated', token: true, ...parts }));
}

const BAD_DATES = [
  '9200-20-25',
  '2026-02-30',
  '0000-00-00',
  '2026-13-01',
  '+275760-09-14',
  '99999-01-01',
  '2026-02-30T25:61:00Z',
  '9999-99-99T00:00:00Z',
  '2026-02-29',
];
const HUGE_NUMBERS = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 63), 1e21, 5e-324];
const LONG_STRINGS = ['a'.repeat(5000), '가'.repeat(5000), '😀'.repeat(2500)];

/** A place in a request a mutation can change: a path or query parameter, or a spot in the JSON body. */
interface Slot {
  where: 'path' | 'query' | 'body';
  /** Path of keys into the body; for parameters, its name. */
  keys: (string | number)[];
  value: unknown;
}

function slotsOf(req: FuzzRequest): Slot[] {
  const slots: Slot[] = [];
  for (const [name, value] of Object.entries(req.pathParams)) slots.push({ where: 'path', keys: [name], value });
  for (const [name, value] of Object.entries(req.query)) slots.push({ where: 'query', keys: [name], value });
  const walk = (value: unknown, keys: (string | number)[]) => {
    slots.push({ where: 'body', keys, value });
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...keys, i]));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, [...keys, k]);
  };
  if (req.body && 'json' in req.body) walk(req.body.json, []);
  return slots;
}

function withSlot(req: FuzzRequest, slot: Slot, value: unknown): FuzzRequest {
  if (slot.where !== 'body') {
    const part = slot.where === 'path' ? 'pathParams' : 'query';
    return { ...req, [part]: { ...req[part], [slot.keys[0]]: value } };
  }
  const json = structuredClone((req.body as { json: unknown }).json);
  if (slot.keys.length === 0) return { ...req, body: { json: value } };
  const parent = slot.keys.slice(0, -1).reduce<any>((node, k) => node[k], json);
  parent[slot.keys[slot.keys.length - 1]] = value;
  return { ...req, body: { json } };
}

const inParam = (slot: Slot) => slot.where !== 'body';
const looksLikeDate = (slot: Slot) => typeof slot.value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(slot.value);

/** Each mutation changes one slot (picked by `pick`) or the body as a whole. */
const MUTATIONS: Record<string, (req: FuzzRequest, pick: number) => FuzzRequest> = {
  hugeNumber: (req, pick) =>
    mutateSlot(
      req,
      pick,
      () => true,
      (slot) => {
        const n = HUGE_NUMBERS[pick % HUGE_NUMBERS.length];
        return inParam(slot) ? (pick % 2 ? '1e999' : String(n)) : n;
      },
    ),
  loneSurrogate: (req, pick) =>
    mutateSlot(
      req,
      pick,
      (s) => typeof s.value === 'string' || inParam(s),
      (slot) =>
        // In a URL a lone surrogate can only arrive as the UTF-8 bytes of one (which is not UTF-8).
        // A body slot that holds no string (the only kind left in a body of booleans) becomes one.
        inParam(slot)
          ? { raw: `a%ED%A0%80${pick % 2 ? '%ED%B0%80' : ''}` }
          : `${typeof slot.value === 'string' ? slot.value.slice(0, 3) : ''}\uD800${pick % 2 ? '\uDC00\uDC00' : ''}`,
    ),
  // In a URL only ASCII: 5,000 Hangul syllables percent-encode past Node's 16 KB header limit (431 before the app).
  longString: (req, pick) =>
    mutateSlot(
      req,
      pick,
      () => true,
      (slot) => (inParam(slot) ? LONG_STRINGS[0] : LONG_STRINGS[pick % LONG_STRINGS.length]),
    ),
  null: (req, pick) =>
    mutateSlot(
      req,
      pick,
      () => true,
      (slot) => (inParam(slot) ? (pick % 2 ? '' : 'null') : null),
    ),
  array120: (req, pick) =>
    mutateSlot(
      req,
      pick,
      () => true,
      (slot) => {
        const item = Array.isArray(slot.value) ? (slot.value[0] ?? 'x') : slot.value;
        return inParam(slot)
          ? Array(120)
              .fill(typeof item === 'object' ? 'x' : String(item))
              .join(',')
          : Array(120).fill(item);
      },
    ),
  wrongType: (req, pick) =>
    mutateSlot(
      req,
      pick,
      () => true,
      (slot) => {
        if (inParam(slot)) return ['abc', '-1', '1.5', 'true', '[]', '{}', '%00'][pick % 7];
        const v = slot.value;
        if (typeof v === 'string') return pick % 2 ? 12345 : { value: v };
        if (typeof v === 'number') return pick % 2 ? String(v) : [v];
        if (typeof v === 'boolean') return pick % 2 ? 'true' : 1;
        if (Array.isArray(v)) return pick % 2 ? {} : 'a,b';
        if (v === null) return pick % 2 ? 0 : 'null';
        return pick % 2 ? [] : 'object';
      },
    ),
  badDate: (req, pick) => mutateSlot(req, pick, looksLikeDate, () => BAD_DATES[pick % BAD_DATES.length]),
  bodyShape: (req, pick) => {
    const shapes: FuzzRequest['body'][] = [
      { json: null },
      { json: [] },
      { json: 'text' },
      { json: 12 },
      { text: '{"a":', type: 'application/json' },
      { text: JSON.stringify(req.body && 'json' in req.body ? req.body.json : {}), type: 'text/plain' },
      null,
    ];
    return { ...req, body: shapes[pick % shapes.length] };
  },
};
export const MUTATION_NAMES = Object.keys(MUTATIONS);

/**
 * Changes one slot among those `fits` accepts (any slot when none fits); a request with nothing to change
 * gets a query parameter of the mutated value.
 */
function mutateSlot(req: FuzzRequest, pick: number, fits: (s: Slot) => boolean, value: (s: Slot) => unknown): FuzzRequest {
  const slots = slotsOf(req);
  const fitting = slots.filter(fits);
  const pool = fitting.length > 0 ? fitting : slots;
  if (pool.length === 0) {
    const slot: Slot = { where: 'query', keys: ['q'], value: '2026-01-01' };
    return withSlot(req, slot, value(slot));
  }
  const slot = pool[pick % pool.length];
  return withSlot(req, slot, value(slot));
}

export function mutatedRequest(op: FuzzOperation, resolve: (s: Schema) => Schema, known: KnownValues): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(validRequest(op, resolve, known, true), fc.constantFrom(...MUTATION_NAMES), fc.nat())
    .map(([req, name, pick]) => ({ ...MUTATIONS[name](req, pick), kind: name }));
}

/** A parameter value as URL text: strings as they are, lists comma-joined (the API's list form), the rest as JSON. */
export function paramText(value: unknown): string {
  if (isWire(value)) return value.raw;
  const text =
    typeof value === 'string'
      ? value
      : Array.isArray(value)
        ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',')
        : JSON.stringify(value);
  return encodeURIComponent(text.toWellFormed());
}

export function urlOf(base: string, req: FuzzRequest): string {
  const path = req.op.path.replace(/\{(\w+)\}/g, (_, name: string) => paramText(req.pathParams[name] ?? 'x'));
  const search = Object.entries(req.query)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${paramText(v)}`)
    .join('&');
  return `${base}${path}${search ? `?${search}` : ''}`;
}
