import { z } from 'zod';

/**
 * zod schemas as the JSON Schema of the OpenAPI document (openapi.ts): converted once per shape, the parts
 * zod names (`.meta({ id })`, recursive trees) kept under `components/schemas` and referred to by `$ref`.
 */

export type JsonSchema = { [key: string]: any };
type Io = 'input' | 'output';

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

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
export class SchemaComponents {
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
export const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (defOf(current).innerType && ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch'].includes(defOf(current).type))
    current = defOf(current).innerType!;
  return current;
}

/** Adds `pattern` to a string schema, beside one it may already have. */
function addPattern(jsonSchema: JsonSchema, pattern: string) {
  // Already stated: zod may call the override twice for one schema (`.trim().email()`).
  if (jsonSchema.pattern === pattern || jsonSchema.allOf?.some((part: JsonSchema) => part.pattern === pattern)) return;
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
export function commaListArray(schema: z.ZodType): z.ZodType | null {
  const pipe = unwrapped(schema);
  if (defOf(pipe).type !== 'pipe') return null;
  let source = defOf(pipe).in!;
  while (defOf(source).type === 'pipe') source = defOf(source).in!;
  const target = unwrapped(defOf(pipe).out!);
  return defOf(source).type === 'string' && defOf(target).type === 'array' ? target : null;
}
