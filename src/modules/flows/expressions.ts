import { parse } from '@marcbachmann/cel-js';

/**
 * Flow expressions are CEL (a non-Turing-complete, side-effect-free language; never `eval`, never the app
 * sandbox) over `{ order, item, input, flow, now }`. Each source is compiled once and cached; a source
 * that does not parse, and an evaluation that fails, yield null (spec 02 §2.4).
 */
type Compiled = ReturnType<typeof parse>;
const compiled = new Map<string, Compiled | null>();
const CACHE_LIMIT = 5000;

function compile(source: string): Compiled | null {
  let fn = compiled.get(source);
  if (fn === undefined) {
    try {
      fn = parse(source);
    } catch {
      fn = null;
    }
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(source, fn);
  }
  return fn;
}

/** The parse error of a source, or null when it parses (for the definition check). */
export function parseError(source: string): string | null {
  try {
    parse(source);
    return null;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

export interface ExpressionScope {
  order: Record<string, unknown>;
  item: Record<string, unknown>;
  input: Record<string, unknown>;
  flow: Record<string, unknown>;
  now: number;
}

/** CEL keeps integers and doubles apart: whole numbers go in as ints so `item.quantity * 2` works. */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (value && typeof value === 'object' && !(value instanceof Date)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toCel(v)]));
  return value;
}

/** Back to JSON values: ints to numbers, timestamps to ISO strings; anything else unrepresentable to null. */
function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCel(v)]));
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, fromCel(v)]));
  return null;
}

export function evaluate(source: string, scope: ExpressionScope): unknown {
  const fn = compile(source);
  if (!fn) return null;
  try {
    return fromCel(fn({ order: toCel(scope.order), item: toCel(scope.item), input: toCel(scope.input), flow: toCel(scope.flow), now: new Date(scope.now) }));
  } catch {
    return null;
  }
}

/** A `when` condition holds only when it evaluates to exactly true. */
export const holds = (source: string | undefined, scope: ExpressionScope) => source === undefined || evaluate(source, scope) === true;

/** An `at` timer's instant: a timestamp or ISO string; anything else is no timer. */
export function instantOf(source: string, scope: ExpressionScope): number | null {
  const value = evaluate(source, scope);
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}
