/**
 * How modules reach the modules above them without importing them: `announce` tells every module that listens
 * (`Module.on`) what happened, `ask` gets the one module's answer (`Module.answers`). Both work from the
 * database handle alone — the service binds itself to its database at start (`bindServices`) — because the
 * code that announces (inside a transaction, deep in a module) often holds nothing else.
 */
import type { Db } from '../db/client.js';
import type { Happenings, Questions } from './module.js';
import type { Services } from './services.js';

type Listener<K extends keyof Happenings> = (services: Services, happening: Happenings[K]) => unknown;

interface Wiring {
  services: Services;
  listeners: Map<keyof Happenings, Listener<keyof Happenings>[]>;
  answers: Map<keyof Questions, unknown>;
}

const wiringOf = new WeakMap<Db, Wiring>();

/** Binds the service to its database: worked out once, so announcing costs a map look-up and the calls. */
export function bindServices(services: Services): void {
  const listeners = new Map<keyof Happenings, Listener<keyof Happenings>[]>();
  const answers = new Map<keyof Questions, unknown>();
  for (const module of services.modules) {
    for (const [name, listen] of Object.entries(module.on ?? {}) as [keyof Happenings, Listener<keyof Happenings>][]) {
      listeners.set(name, [...(listeners.get(name) ?? []), listen]);
    }
    for (const [name, answer] of Object.entries(module.answers ?? {}) as [keyof Questions, unknown][]) {
      if (answers.has(name)) throw new Error(`question ${String(name)}: answered twice (again by ${module.name})`);
      answers.set(name, answer);
    }
  }
  wiringOf.set(services.db, { services, listeners, answers });
}

function wiring(db: Db): Wiring {
  const found = wiringOf.get(db);
  if (!found) throw new Error('hooks: this database is not bound to a service (bindServices at start)');
  return found;
}

/** Tells every module listening for `name` what happened, in module order, inside the caller's transaction. */
export async function announce<K extends keyof Happenings>(db: Db, name: K, happening: Happenings[K]): Promise<void> {
  const { services, listeners } = wiring(db);
  for (const listen of listeners.get(name) ?? []) await (listen as Listener<K>)(services, happening);
}

/** The answer of the one module that answers `name` (a wiring error when none does). */
export function ask<K extends keyof Questions>(db: Db, name: K): Questions[K] {
  const answer = wiring(db).answers.get(name);
  if (!answer) throw new Error(`question ${String(name)}: no module answers it`);
  return answer as Questions[K];
}
