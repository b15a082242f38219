import { Args, Flags } from '@oclif/core';
import { UsageError } from './usage-error.js';
import { EVENT_TYPES } from '../modules/events/types.js';

/** Pieces every `svc webhooks` command shares (kept out of src/commands, where every file is a command): the subscription argument, event-type lists, renderings. */
export const webhookArg = Args.string({ name: 'WEBHOOK_ID', description: 'Subscription id (wh_…; svc webhooks list)', required: true });

export const eventsFlag = (required: boolean) => Flags.string({ description: `Event types, comma-separated: ${EVENT_TYPES.join(', ')}`, required });

/** `--events` as a list; an unknown type is a usage error (exit 2) before any request. */
export function eventList(value: string): string[] {
  const types = value.split(',').map((t) => t.trim()).filter(Boolean);
  const unknown = types.filter((t) => !(EVENT_TYPES as string[]).includes(t));
  if (unknown.length || types.length === 0) throw new UsageError(`unknown event type ${unknown.join(', ') || '(none)'}; known: ${EVENT_TYPES.join(', ')}`);
  return types;
}

export const webhookColumns = ['webhookId', 'status', 'url', 'events', 'secretPrefix', 'suspendedAt'];
export const webhookRow = (w: any) => ({ ...w, events: w.eventTypes.join(',') });

export const deliveryColumns = ['deliveryId', 'status', 'eventType', 'attempts', 'result', 'lastAttemptAt', 'nextAttemptAt'];
export const deliveryRow = (d: any) => ({
  ...d,
  attempts: d.attemptCount,
  result: d.responseStatusCode ?? d.failureReason ?? '',
});
