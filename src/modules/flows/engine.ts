import type { ActionDef, Definition, InputDef } from './definition.js';
import { APP_CHANNEL, durationMs, SECRET_PARAM } from './definition.js';
import { evaluate, ExpressionMeter, holds, instantOf, type ExpressionScope } from './expressions.js';

/**
 * The order-flow engine's pure core: what one trigger does to one item, as data. It reads no database and
 * no clock (`now` is given), so the API, the timer job, and simulate/replay with a virtual clock all run
 * exactly this code; the service applies the effects in one transaction.
 */

export type Actor = 'SELLER' | 'BUYER';

export interface ItemState {
  state: string;
  /** A claim is open on this item / on some item of its progression group. */
  claimOpen: boolean;
  groupClaimOpen: boolean;
  /** Canceled, returned or exchanged in full by a cancel or claim: the flow has nothing more to do with it. */
  closed?: boolean;
  /** What expressions read besides `input` and `now`. */
  facts: Pick<ExpressionScope, 'order' | 'item' | 'flow'>;
}

export type Trigger =
  /** The item enters the flow's initial state (at payment). */
  | { kind: 'start' }
  | { kind: 'action'; key: string; actor: Actor; scope: 'ITEM' | 'ORDER'; input: Record<string, unknown> }
  | { kind: 'event'; name: string; input: Record<string, unknown> }
  /** A timer of transition number `transition` came due. */
  | { kind: 'timer'; transition: number }
  /** The seller puts the item in another state directly, outside the flow's transitions (`…/flow/move`). */
  | { kind: 'move'; to: string; reason: string };

export interface TimerSet {
  transition: number;
  kind: 'after' | 'at';
  dueAt: number;
  /** The state the timer leads to. */
  to: string;
}

/** ORDER.* events a move into a core status fires (spec 01 §6.2); FULFILLED is accompanied by DELIVERED (rule 7). */
const CORE_EVENTS: Record<string, string[]> = {
  CONFIRMED: ['ORDER.CONFIRMED'],
  DISPATCHED: ['ORDER.DISPATCHED'],
  DELIVERED: ['ORDER.DELIVERED'],
  FULFILLED: ['ORDER.FULFILLED', 'ORDER.DELIVERED'],
  PURCHASE_DECIDED: ['ORDER.PURCHASE_DECIDED'],
};

export interface Effects {
  /** Null when the trigger moved nothing (`start`). */
  move: { from: string; to: string; label: string; coreStatus: string; previousCoreStatus: string } | null;
  /** Timers of the state left (all pending ones of the item) are cleared whenever the item moves. */
  timersCleared: boolean;
  timersSet: TimerSet[];
  notifications: { channel: string; params: Record<string, unknown> }[];
  /** ORDER.* event types besides ORDER.FLOW_STATE_CHANGED, which every move fires. */
  events: string[];
  /** The buyer withdrew the open claim's request: the claim hold ends (the claims module settles the claim). */
  withdrawClaim: boolean;
}

export type Refusal =
  | { code: 'ACTION_NOT_AVAILABLE'; reason: 'UNKNOWN_ACTION' | 'NOT_IN_STATE' | 'ACTOR' | 'SCOPE' | 'NO_OPEN_CLAIM' | 'CLOSED' }
  | { code: 'FLOW_MOVE_NOT_ALLOWED'; reason: 'CONDITION' | 'CLAIM_OPEN' | 'UNKNOWN_STATE' | 'SAME_STATE' | 'CLOSED' }
  | { code: 'FLOW_ACTION_INPUT_INVALID'; issues: InputIssue[] }
  | { code: 'FLOW_EVENT_NOT_ACCEPTED' }
  | { code: 'TIMER_STALE' };

export type StepResult = { ok: true; next: string; effects: Effects } | { ok: false; refusal: Refusal };

export interface InputIssue {
  key: string;
  code: 'REQUIRED' | 'INVALID_TYPE' | 'NOT_AN_OPTION' | 'UNKNOWN_INPUT' | 'TOO_LONG' | 'UPLOAD_NOT_FOUND';
  message: string;
}

/** The buyer's withdrawal of a claim request: offered only while a claim is open, and never stopped by it. */
const WITHDRAW = 'WITHDRAW_REQUEST';
const NO_EFFECTS: Effects = { move: null, timersCleared: false, timersSet: [], notifications: [], events: [], withdrawClaim: false };

const scopeOf = (item: ItemState, input: Record<string, unknown>, now: number): ExpressionScope => ({ ...item.facts, input, now });

/**
 * Expression work one trigger (or one look at an item's actions) may spend in all, beyond each
 * evaluation's own budget: a definition of two hundred heavy conditions still answers soon. Past it the
 * rest of the trigger's expressions are null, as every failed expression is.
 */
export const TRIGGER_BUDGET = 1_000_000;
const metered = <T>(work: () => T): T => new ExpressionMeter(TRIGGER_BUDGET).run(work).value;

/** What entering `state` at `now` does: its notifications and the timers of the transitions leaving it. */
function enter(def: Definition, state: string, scope: ExpressionScope): Pick<Effects, 'timersSet' | 'notifications'> {
  const timersSet: TimerSet[] = [];
  def.transitions.forEach((t, transition) => {
    if (t.from !== state || !('timer' in t.on)) return;
    const timer = t.on.timer;
    if ('after' in timer) timersSet.push({ transition, kind: 'after', dueAt: scope.now + durationMs(timer.after), to: t.to });
    else {
      const dueAt = instantOf(timer.at, scope);
      if (dueAt !== null) timersSet.push({ transition, kind: 'at', dueAt, to: t.to });
    }
  });
  const notifications = (def.states[state]?.notify ?? []).map((n) => ({
    channel: n.channel,
    params: Object.fromEntries(Object.entries(n.params ?? {}).map(([name, source]) => [name, paramValue(n.channel, source, scope)])),
  }));
  return { timersSet, notifications };
}

/** What entering `state` sets — its timers and notifications — for an item put there from outside the flow (a version migration). */
export function entering(def: Definition, item: ItemState, state: string, now: number) {
  const scope = scopeOf(item, {}, now);
  return metered(() => enter(def, state, { ...scope, flow: { ...scope.flow, state } }));
}

const emptyToNull = (value: unknown) => (value === '' || value === undefined ? null : value);

function moveTo(def: Definition, item: ItemState, to: string, scope: ExpressionScope): StepResult {
  const fromState = def.states[item.state];
  const toState = def.states[to];
  const entered = enter(def, to, { ...scope, flow: { ...scope.flow, state: to } });
  const coreChanged = fromState?.coreStatus !== toState.coreStatus;
  return {
    ok: true,
    next: to,
    effects: {
      move: { from: item.state, to, label: toState.label, coreStatus: toState.coreStatus, previousCoreStatus: fromState?.coreStatus ?? toState.coreStatus },
      timersCleared: true,
      ...entered,
      events: coreChanged ? (CORE_EVENTS[toState.coreStatus] ?? []) : [],
      withdrawClaim: false,
    },
  };
}

/** A notification parameter: the expression's value, or for an app channel a flow secret by reference. */
function paramValue(channel: string, source: string, scope: ExpressionScope): unknown {
  const secret = APP_CHANNEL.test(channel) ? SECRET_PARAM.exec(source) : null;
  return secret ? { secret: secret[1] } : emptyToNull(evaluate(source, scope));
}

/** What a closed item (canceled, returned, exchanged in full) answers to anything but its start. */
function closedRefusal(trigger: Trigger): Refusal {
  switch (trigger.kind) {
    case 'action':
      return { code: 'ACTION_NOT_AVAILABLE', reason: 'CLOSED' };
    case 'event':
      return { code: 'FLOW_EVENT_NOT_ACCEPTED' };
    case 'timer':
      return { code: 'TIMER_STALE' };
    default:
      return { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'CLOSED' };
  }
}

/** One trigger applied to one item. */
export function step(def: Definition, item: ItemState, trigger: Trigger, now: number): StepResult {
  return metered(() => applyTrigger(def, item, trigger, now));
}

function applyTrigger(def: Definition, item: ItemState, trigger: Trigger, now: number): StepResult {
  if (item.closed && trigger.kind !== 'start') return { ok: false, refusal: closedRefusal(trigger) };
  switch (trigger.kind) {
    case 'start': {
      const scope = scopeOf(item, {}, now);
      return {
        ok: true,
        next: def.initial,
        effects: { move: null, timersCleared: false, ...enter(def, def.initial, scope), events: [], withdrawClaim: false },
      };
    }
    case 'action': {
      const action = def.actions[trigger.key];
      const refusal = actionRefusal(def, item, trigger.key, trigger.actor, trigger.scope);
      if (refusal) return { ok: false, refusal };
      const issues = inputIssues(action.inputs ?? [], trigger.input);
      if (issues.length) return { ok: false, refusal: { code: 'FLOW_ACTION_INPUT_INVALID', issues } };
      if (trigger.key === WITHDRAW) return { ok: true, next: item.state, effects: { ...NO_EFFECTS, withdrawClaim: true } };
      const scope = scopeOf(item, trigger.input, now);
      const transition = def.transitions.find((t) => t.from === item.state && 'action' in t.on && t.on.action === trigger.key && holds(t.when, scope));
      if (!transition) return { ok: false, refusal: { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'CONDITION' } };
      return moveTo(def, item, transition.to, scope);
    }
    case 'event': {
      const scope = scopeOf(item, trigger.input, now);
      const transition = def.transitions.find((t) => t.from === item.state && 'event' in t.on && t.on.event === trigger.name && holds(t.when, scope));
      if (!transition) return { ok: false, refusal: { code: 'FLOW_EVENT_NOT_ACCEPTED' } };
      return moveTo(def, item, transition.to, scope);
    }
    case 'move': {
      // A direct move skips the graph but not the claim rule: an open claim holds the item where it is.
      if (!def.states[trigger.to]) return { ok: false, refusal: { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'UNKNOWN_STATE' } };
      if (trigger.to === item.state) return { ok: false, refusal: { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'SAME_STATE' } };
      if (item.claimOpen || item.groupClaimOpen) return { ok: false, refusal: { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'CLAIM_OPEN' } };
      return moveTo(def, item, trigger.to, scopeOf(item, {}, now));
    }
    case 'timer': {
      const t = def.transitions[trigger.transition];
      if (!t || t.from !== item.state || !('timer' in t.on)) return { ok: false, refusal: { code: 'TIMER_STALE' } };
      const scope = scopeOf(item, {}, now);
      if (!holds(t.when, scope)) return { ok: false, refusal: { code: 'TIMER_STALE' } };
      return moveTo(def, item, t.to, scope);
    }
  }
}

/** An open claim stops the action unless it is the withdrawal, or the group goes on (`groupClaim: CONTINUE`). */
function claimBlocks(action: ActionDef, key: string, item: ItemState) {
  if (key === WITHDRAW) return false;
  return item.claimOpen || (item.groupClaimOpen && (action.requires?.groupClaim ?? 'PAUSE') === 'PAUSE');
}

/** Why `actor` cannot run action `key` on the item now (before conditions and inputs), or null. */
export function actionRefusal(def: Definition, item: ItemState, key: string, actor: Actor, scope: 'ITEM' | 'ORDER'): Refusal | null {
  const action = def.actions[key];
  if (!action) return { code: 'ACTION_NOT_AVAILABLE', reason: 'UNKNOWN_ACTION' };
  if (action.actor !== actor) return { code: 'ACTION_NOT_AVAILABLE', reason: 'ACTOR' };
  // Item actions may be run for a whole order (each item in turn); order actions only for the order.
  if (action.scope === 'ORDER' && scope === 'ITEM') return { code: 'ACTION_NOT_AVAILABLE', reason: 'SCOPE' };
  if (key === WITHDRAW) return item.claimOpen ? null : { code: 'ACTION_NOT_AVAILABLE', reason: 'NO_OPEN_CLAIM' };
  if (!offeredIn(def, item.state, key)) return { code: 'ACTION_NOT_AVAILABLE', reason: 'NOT_IN_STATE' };
  if (claimBlocks(action, key, item)) return { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'CLAIM_OPEN' };
  return null;
}

/** Actions with a transition leaving `state`: the ones the state offers. */
const offeredIn = (def: Definition, state: string, key: string) => def.transitions.some((t) => t.from === state && 'action' in t.on && t.on.action === key);

/**
 * Whether the state offers a buyer action with authority IMMEDIATE_CANCEL: then a buyer's cancel of the
 * item applies at once (spec 02 §4.4), whatever the state's `claims.cancel` says. `when` conditions are not
 * consulted: they read the action's input, which a cancel claim has none of.
 */
export function offersImmediateCancel(def: Definition, state: string): boolean {
  return Object.entries(def.actions).some(([key, a]) => a.authority === 'IMMEDIATE_CANCEL' && a.actor === 'BUYER' && offeredIn(def, state, key));
}

export interface ActionView {
  key: string;
  label: string;
  actor: Actor;
  scope: 'ITEM' | 'ORDER';
  enabled: boolean;
  disabled: { reason: string } | null;
  inputs: InputDef[];
}

/**
 * The actions of the item's state (and the withdrawal while a claim is open). A condition that fails
 * without input disables the action; one that cannot be judged without input leaves it enabled.
 */
export function availableActions(def: Definition, item: ItemState, now: number): ActionView[] {
  if (item.closed) return [];
  const keys = new Set(def.transitions.filter((t) => t.from === item.state && 'action' in t.on).map((t) => (t.on as { action: string }).action));
  if (item.claimOpen && def.actions[WITHDRAW]) keys.add(WITHDRAW);
  const scope = scopeOf(item, {}, now);
  return metered(() =>
    [...keys]
      .filter((key) => def.actions[key])
      .map((key) => {
        const action = def.actions[key];
        let reason: string | null = null;
        if (claimBlocks(action, key, item)) reason = 'CONDITION';
        else if (key !== WITHDRAW) {
          const conditions = def.transitions
            .filter((t) => t.from === item.state && 'action' in t.on && t.on.action === key)
            .map((t) => (t.when === undefined ? true : evaluate(t.when, scope)));
          if (conditions.every((c) => c === false)) reason = 'CONDITION';
        }
        return {
          key,
          label: action.label,
          actor: action.actor,
          scope: action.scope,
          enabled: reason === null,
          disabled: reason ? { reason } : null,
          inputs: action.inputs ?? [],
        };
      }),
  );
}

/** An input shown only when another input's value is among `when.in`. */
const applies = (def: InputDef, input: Record<string, unknown>) => !def.when || def.when.in.includes(input[def.when.key] as string | boolean);

const TEXT_MAX = { text: 200, textarea: 2000 } as Record<string, number>;

/** Action input against its definitions (kinds, options, required, conditional `when`); unknown keys are refused. */
export function inputIssues(defs: InputDef[], input: Record<string, unknown>): InputIssue[] {
  const issues: InputIssue[] = [];
  const known = new Set(defs.map((d) => d.key));
  for (const key of Object.keys(input)) if (!known.has(key)) issues.push({ key, code: 'UNKNOWN_INPUT', message: '이 작업에 없는 입력입니다.' });
  for (const d of defs) {
    const value = input[d.key];
    const shown = applies(d, input);
    if (value === undefined || value === null || value === '') {
      if (d.required && shown) issues.push({ key: d.key, code: 'REQUIRED', message: `${d.label}을(를) 입력하세요.` });
      continue;
    }
    const problem = kindProblem(d, value);
    if (problem) issues.push({ key: d.key, ...problem });
  }
  return issues;
}

function kindProblem(d: InputDef, value: unknown): Pick<InputIssue, 'code' | 'message'> | null {
  const options = new Set((d.options ?? []).map((o) => o.value));
  const wrongType = { code: 'INVALID_TYPE' as const, message: `${d.kind} 입력의 값이 아닙니다.` };
  switch (d.kind) {
    case 'text':
    case 'textarea':
      if (typeof value !== 'string') return wrongType;
      return value.length > TEXT_MAX[d.kind] ? { code: 'TOO_LONG', message: `${TEXT_MAX[d.kind]}자 이하여야 합니다.` } : null;
    case 'boolean':
      return typeof value === 'boolean' ? null : wrongType;
    case 'radio':
    case 'select':
      if (typeof value !== 'string') return wrongType;
      return options.has(value) ? null : { code: 'NOT_AN_OPTION', message: '선택지에 없는 값입니다.' };
    case 'checkbox':
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return wrongType;
      return value.every((v) => options.has(v)) ? null : { code: 'NOT_AN_OPTION', message: '선택지에 없는 값입니다.' };
    case 'datetime':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)) ? null : wrongType;
    case 'image':
      // An upload id; that it is one of this store's pictures is the service's check (it needs the database).
      return typeof value === 'string' && /^upl_\w+$/.test(value) ? null : wrongType;
  }
}
