import { isoAt } from '../../db/clock.js';
import type { Definition } from './definition.js';
import { entering, step, type Actor, type ItemState, type Refusal, type TimerSet, type Trigger } from './engine.js';
import { ExpressionMeter } from './expressions.js';

/**
 * One item run through a definition on a virtual clock, by the engine's own `step` (no second
 * implementation): simulate drives it with the seller's steps, replay with an item's recorded runs.
 * No database, no outbox: notifications and timers are reported, not sent or stored. All the expressions
 * of one run share a work budget, so no simulation holds the service's thread for long.
 */

export type TraceTrigger =
  | { kind: 'start' }
  | { kind: 'action'; key: string; actor: Actor }
  | { kind: 'event'; name: string }
  | { kind: 'timer'; timer: 'after' | 'at'; transition: number };

export interface TraceEntry {
  at: string;
  trigger: TraceTrigger;
  from: string | null;
  to: string;
  coreStatus: string;
  notifications: { channel: string; params: Record<string, unknown> }[];
  timers: { transition: number; kind: 'after' | 'at'; to: string; dueAt: string }[];
  /** Why the trigger moved nothing (the API would have answered this code), else null. */
  refusal: ({ code: string } & Record<string, unknown>) | null;
  /** Expressions of this step stopped by their budget (they counted as null, as on a real order). */
  expressionErrors: ExpressionMeter['exceeded'];
}

/** The simulated run stops after this many trace entries (timers of zero length can cycle forever). */
export const TRACE_LIMIT = 5000;
/** Expression work units of one whole run: a thousand steps of ordinary conditions use a small part of it. */
export const SIMULATION_BUDGET = 5_000_000;

export class VirtualItem {
  state: string;
  clock: number;
  private pending: TimerSet[] = [];
  private inputs: Record<string, Record<string, unknown>> = {};
  private enteredAt: number;
  readonly trace: TraceEntry[] = [];
  readonly meter = new ExpressionMeter(SIMULATION_BUDGET);

  constructor(
    private readonly def: Definition,
    private readonly facts: Omit<ItemState['facts'], 'flow'> & { flow: Record<string, unknown> },
    at: number,
  ) {
    this.state = def.initial;
    this.clock = at;
    this.enteredAt = at;
  }

  get coreStatus() {
    return this.def.states[this.state]?.coreStatus ?? 'PAID';
  }

  get full() {
    return this.trace.length >= TRACE_LIMIT;
  }

  /** What the engine sees now: like the service's view of a stored item, without claims. */
  private itemState(): ItemState {
    return {
      state: this.state,
      claimOpen: false,
      groupClaimOpen: false,
      facts: { ...this.facts, flow: { ...this.facts.flow, state: this.state, enteredAt: isoAt(this.enteredAt), inputs: this.inputs } },
    };
  }

  start(): TraceEntry {
    return this.apply({ kind: 'start' }, { kind: 'start' });
  }

  action(key: string, input: Record<string, unknown>, actor?: Actor): TraceEntry {
    const who = actor ?? this.def.actions[key]?.actor ?? 'SELLER';
    // A simulation judges the action, not who may reach it: order-scope actions run as on the order.
    return this.apply({ kind: 'action', key, actor: who, scope: 'ORDER', input }, { kind: 'action', key, actor: who });
  }

  event(name: string, input: Record<string, unknown>): TraceEntry {
    return this.apply({ kind: 'event', name, input }, { kind: 'event', name });
  }

  /** Moves the clock to `until`, firing each timer that comes due on the way at its own instant. */
  advanceTo(until: number): TraceEntry[] {
    const fired: TraceEntry[] = [];
    for (;;) {
      const next = this.pending.filter((t) => t.dueAt <= until).sort((a, b) => a.dueAt - b.dueAt || a.transition - b.transition)[0];
      if (!next || this.full || this.meter.exhausted) break;
      this.clock = Math.max(this.clock, next.dueAt);
      this.pending = this.pending.filter((t) => t !== next);
      fired.push(this.apply({ kind: 'timer', transition: next.transition }, { kind: 'timer', timer: next.kind, transition: next.transition }));
    }
    this.clock = Math.max(this.clock, until);
    return fired;
  }

  /** The item is put in `state` from outside the flow (a version migration): no notifications, timers anew. */
  jump(state: string) {
    this.state = state;
    this.enteredAt = this.clock;
    this.pending = this.def.states[state] ? this.meter.run(() => entering(this.def, this.itemState(), state, this.clock)).value.timersSet : [];
  }

  finalState() {
    const state = this.def.states[this.state];
    return {
      state: this.state,
      label: state?.label ?? this.state,
      coreStatus: this.coreStatus,
      final: state?.final ?? false,
      timers: this.pending.map(presentTimer),
      inputs: this.inputs,
      at: isoAt(this.clock),
    };
  }

  private apply(trigger: Trigger, shown: TraceTrigger): TraceEntry {
    const from = this.state;
    const { value: result, exceeded } = this.meter.run(() => step(this.def, this.itemState(), trigger, this.clock));
    const entry: TraceEntry = {
      at: isoAt(this.clock),
      trigger: shown,
      from: trigger.kind === 'start' ? null : from,
      to: from,
      coreStatus: this.coreStatus,
      notifications: [],
      timers: [],
      refusal: null,
      expressionErrors: exceeded,
    };
    if (!result.ok) {
      entry.refusal = refusalOf(result.refusal);
    } else {
      const { effects } = result;
      if (effects.move) {
        this.state = effects.move.to;
        this.enteredAt = this.clock;
        if (trigger.kind === 'action') this.inputs = { ...this.inputs, [trigger.key]: trigger.input };
      }
      if (effects.timersCleared) this.pending = [];
      this.pending.push(...effects.timersSet);
      Object.assign(entry, { to: this.state, coreStatus: this.coreStatus, notifications: effects.notifications, timers: effects.timersSet.map(presentTimer) });
    }
    this.trace.push(entry);
    return entry;
  }
}

const presentTimer = (t: TimerSet) => ({ transition: t.transition, kind: t.kind, to: t.to, dueAt: isoAt(t.dueAt) });

function refusalOf(refusal: Refusal): TraceEntry['refusal'] {
  const { code, ...rest } = refusal;
  return { code, ...rest };
}
