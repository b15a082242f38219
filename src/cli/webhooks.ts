import { Args, Flags } from '@oclif/core';
import { UsageError } from './usage-error.js';
import { EVENT_TYPES } from '../kernel/event-types.js';

/** Pieces every `svc webhooks` command shares (kept out of src/commands, where every file is a command): the subscription argument, event-type lists, renderings. */
export const webhookArg = Args.string({ name: 'WEBHOOK_ID', description: 'Subscription id (wh_…; svc webhooks list)', required: true });

export const eventsFlag = (required: boolean, known: readonly string[] = EVENT_TYPES) =>
  Flags.string({ description: `Event types, comma-separated, in any case; GROUP.* for a whole group: ${known.join(', ')}`, required });

/**
 * `--events` as a list of `known` types: case does not matter (`order.paid`), and `ORDER.*` means every
 * ORDER type. A type or group that names nothing is a usage error (exit 2) before any request.
 */
export function eventList(value: string, known: readonly string[] = EVENT_TYPES): string[] {
  const asked = value
    .split(',')
    .map((t) => t.trim().toUpperCase())
    .filter(Boolean);
  const types = new Set<string>();
  const unknown: string[] = [];
  for (const entry of asked) {
    const matches = entry.endsWith('.*') ? known.filter((t) => t.startsWith(entry.slice(0, -1))) : known.filter((t) => t === entry);
    if (matches.length === 0) unknown.push(entry);
    for (const t of matches) types.add(t);
  }
  if (unknown.length || types.size === 0) throw new UsageError(`unknown event type ${unknown.join(', ') || '(none)'}; known: ${known.join(', ')}`);
  return [...types];
}

export const webhookColumns = ['webhookId', 'status', 'url', 'events', 'secretPrefix', 'suspendedAt'];
export const webhookRow = (w: any) => ({ ...w, events: w.eventTypes.join(',') });

export const deliveryColumns = ['deliveryId', 'status', 'eventType', 'attempts', 'result', 'lastAttemptAt', 'nextAttemptAt'];
export const deliveryRow = (d: any) => ({
  ...d,
  attempts: d.attemptCount,
  result: d.responseStatusCode ?? d.failureReason ?? '',
});
