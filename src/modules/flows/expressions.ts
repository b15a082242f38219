import { createRequire } from 'node:module';
import type { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';

/**
 * Flow expressions are CEL (a non-Turing-complete, side-effect-free language; never `eval`, never the app
 * sandbox) over `{ order, item, input, flow, now }`. Each source is compiled once and cached; a source
 * that does not compile, and an evaluation that fails, yield null (spec 02 §2.4).
 *
 * Expressions run inside the service's one thread, on text buyers write, so nothing they do may take long:
 * `matches` is RE2 (linear in its text, no backreferences or lookaround), and each evaluation has a work
 * budget — every node evaluated costs one unit plus the size of the value it makes (string length, list
 * and map elements, deeply), and `matches` its pattern's length plus its text's length times the compiled
 * pattern's size (RE2 steps each live instruction once per character at worst). Past the budget the
 * evaluation stops and yields null like any failed expression. Meters (a trigger, a simulation) bound what
 * many evaluations spend together.
 */

/** Units one evaluation may spend: far above any real condition, far below what stalls a request. */
export const EXPRESSION_BUDGET = 100_000;
export const EXPRESSION_BUDGET_EXCEEDED = 'EXPRESSION_BUDGET_EXCEEDED';

let env: Environment | undefined;

/**
 * The CEL environment, with CEL's parse-time limits tight for the 1,000 characters a definition allows an
 * expression. cel-js builds its function tables as it loads, a noticeable part of a service start that
 * compiles no expression: it is loaded (require of an ES module, synchronous) by the first one compiled.
 */
function celEnvironment(): Environment {
  if (!env) {
    const cel = createRequire(import.meta.url)('@marcbachmann/cel-js') as typeof import('@marcbachmann/cel-js');
    env = new cel.Environment({
      unlistedVariablesAreDyn: true,
      limits: { maxAstNodes: 1000, maxDepth: 50, maxListElements: 500, maxMapEntries: 500, maxCallArguments: 16 },
    });
  }
  return env;
}

type Compiled = ReturnType<Environment['parse']>;
type Evaluator = { run: (node: Node, ctx: unknown) => unknown };
type Evaluate = (this: Node, ev: Evaluator, ast: Node, ctx: unknown) => unknown;
/** The library's AST node as it is at run time: its typings leave out the meta its evaluation reads. */
interface Node {
  op: string;
  args: unknown;
  meta: { evaluate: Evaluate; alternate?: Node; macro?: unknown };
  setMeta(key: 'evaluate', value: Evaluate): unknown;
}

/** The work spent by the evaluation running now (evaluations are synchronous, so one at a time). */
let running = { spent: 0, limit: 0 };

/** Throws past the limit; `evaluate` tells the budget from other failures by what was spent. */
function charge(units: number) {
  running.spent += units;
  if (running.spent > running.limit) throw new RangeError('expression budget exceeded');
}

/** Deep sizes by identity; a list grows after it was sized only as a comprehension's accumulator, by appends. */
const sizes = new WeakMap<object, { length: number; size: number }>();

function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.length;
  if (typeof value !== 'object' || value === null) return 1;
  const known = sizes.get(value);
  if (Array.isArray(value)) {
    let size = known?.size ?? 1;
    for (let i = known?.length ?? 0; i < value.length; i++) size += sizeOf(value[i]);
    sizes.set(value, { length: value.length, size });
    return size;
  }
  if (known) return known.size;
  let size = 1;
  if (value instanceof Map) for (const [k, v] of value) size += sizeOf(k) + sizeOf(v);
  else for (const v of Object.values(value)) size += sizeOf(v);
  sizes.set(value, { length: 0, size });
  return size;
}

const patterns = new Map<string, RE2JS>();
const PATTERN_CACHE_LIMIT = 1000;

/** A pattern compiled as RE2, or the reason it is not one (backreferences, lookaround, bad syntax). */
function re2(pattern: string): RE2JS | string {
  let compiled = patterns.get(pattern);
  if (!compiled) {
    try {
      compiled = RE2JS.compile(pattern);
    } catch (error) {
      return (error as Error).message;
    }
    if (patterns.size >= PATTERN_CACHE_LIMIT) patterns.clear();
    patterns.set(pattern, compiled);
  }
  return compiled;
}

function matches(text: unknown, pattern: unknown): boolean {
  if (typeof text !== 'string' || typeof pattern !== 'string') throw new TypeError('matches() takes a string pattern on a string');
  charge(pattern.length);
  const compiled = re2(pattern);
  if (typeof compiled === 'string') throw new SyntaxError(compiled);
  charge(compiled.programSize() * (text.length + 1));
  return compiled.matcher(text).find();
}

/** `text.matches(pattern)` calls; `value` ones carry a literal pattern. */
const isMatches = (node: Node) => node.op === 'rcall' && (node.args as RCall)[0] === 'matches' && (node.args as RCall)[2].length === 1;
type RCall = [name: string, receiver: Node, args: Node[]];

/**
 * Every node of a type-checked expression, the library's own expansions (comprehensions, `has`,
 * `cel.bind`) included: they sit in `args` and in the node's meta.
 */
function nodesOf(root: Node): Node[] {
  const NodeClass = root.constructor;
  const seen = new Set<Node>();
  const visit = (value: unknown): void => {
    if (value instanceof NodeClass) {
      const node = value as Node;
      if (seen.has(node)) return;
      seen.add(node);
      visit(node.args);
      visit(node.meta.alternate);
      visit(node.meta.macro);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) Object.values(value).forEach(visit);
  };
  visit(root);
  return [...seen];
}

/**
 * Puts the meter in front of every node and RE2 behind `matches` (the library's own overload is a
 * backtracking RegExp and cannot be replaced by registration). A comprehension's step answers its
 * accumulator, which its own elements already paid for, so it pays one unit only.
 */
function instrument(root: Node) {
  const nodes = nodesOf(root);
  const steps = new Set(nodes.filter((n) => n.op === 'comprehension').map((n) => (n.args as { step: Node }).step));
  for (const node of nodes) {
    if (isMatches(node)) {
      const [, receiver, [pattern]] = node.args as RCall;
      node.setMeta('evaluate', (ev, _ast, ctx) => {
        charge(1);
        return matches(ev.run(receiver, ctx), ev.run(pattern, ctx));
      });
      continue;
    }
    const inner = node.meta.evaluate;
    const accumulates = steps.has(node) || ['accuValue', 'accuPush', 'accuInc'].includes(node.op);
    node.setMeta('evaluate', function (ev, ast, ctx) {
      charge(1);
      const value = inner.call(this, ev, ast, ctx);
      if (!accumulates) charge(sizeOf(value));
      return value;
    });
  }
}

/** A compiled expression, or why the source is none: a parse or type error, or a literal pattern RE2 refuses. */
function build(source: string): Compiled | string {
  let fn: Compiled;
  try {
    fn = celEnvironment().parse(source);
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
  const checked = fn.check();
  if (!checked.valid) return (checked.error?.message ?? 'type error').split('\n')[0];
  const root = fn.ast as unknown as Node;
  for (const node of nodesOf(root)) {
    if (!isMatches(node)) continue;
    const pattern = (node.args as RCall)[2][0];
    if (pattern.op !== 'value' || typeof pattern.args !== 'string') continue;
    const compiled = re2(pattern.args);
    if (typeof compiled === 'string') return `matches()의 패턴은 RE2 문법이어야 합니다(역참조, 전후방 탐색 불가): ${compiled}`;
  }
  instrument(root);
  return fn;
}

const compiled = new Map<string, Compiled | null>();
const CACHE_LIMIT = 5000;

function compile(source: string): Compiled | null {
  let fn = compiled.get(source);
  if (fn === undefined) {
    const built = build(source);
    fn = typeof built === 'string' ? null : built;
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(source, fn);
  }
  return fn;
}

/** Why a source is no expression (for the definition check), or null when it compiles. */
export function expressionProblem(source: string): string | null {
  const built = build(source);
  return typeof built === 'string' ? built : null;
}

/**
 * The work of several evaluations together (one trigger, a whole simulation): each evaluation made while
 * meters run adds what it spent to each, may spend no more than the least any has left, and one over its
 * budget is listed in their `exceeded`.
 */
export class ExpressionMeter {
  spent = 0;
  exceeded: { code: typeof EXPRESSION_BUDGET_EXCEEDED; expression: string }[] = [];
  constructor(readonly budget: number) {}

  get exhausted() {
    return this.spent >= this.budget;
  }

  get left() {
    return Math.max(this.budget - this.spent, 0);
  }

  /** `work` (synchronous) with its evaluations counted here; answers what it answered and what went over budget. */
  run<T>(work: () => T): { value: T; exceeded: ExpressionMeter['exceeded'] } {
    const before = this.exceeded.length;
    meters.push(this);
    try {
      return { value: work(), exceeded: this.exceeded.slice(before) };
    } finally {
      meters.pop();
    }
  }
}

/** The meters running now, outermost first. */
const meters: ExpressionMeter[] = [];

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

/**
 * A scope's parts as CEL values, converted once per part: one trigger evaluates several expressions (its
 * transitions' conditions, the actions offered after) over the same facts. The parts are never changed
 * once built (a new state makes a new `flow`), so the conversion is kept by identity.
 */
const celParts = new WeakMap<object, unknown>();
function celPart(part: Record<string, unknown>): unknown {
  let value = celParts.get(part);
  if (value === undefined) celParts.set(part, (value = toCel(part)));
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
  const limit = Math.min(EXPRESSION_BUDGET, ...meters.map((m) => m.left));
  const work = { spent: 0, limit };
  running = work;
  let value: unknown = null;
  try {
    value = fn({ order: celPart(scope.order), item: celPart(scope.item), input: celPart(scope.input), flow: celPart(scope.flow), now: new Date(scope.now) });
  } catch {
    // Failed, or stopped by the budget (which errors inside `||`, `&&` and quantifiers may have absorbed).
  }
  const over = work.spent > limit;
  for (const m of meters) {
    m.spent += Math.min(work.spent, limit + 1);
    if (over) m.exceeded.push({ code: EXPRESSION_BUDGET_EXCEEDED, expression: source });
  }
  if (over) return null;
  return fromCel(value);
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
