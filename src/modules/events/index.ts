import type { Module } from '../../server/module.js';
import { mountDevEventRoutes, streamEventsOperation } from './stream.js';

/** The outbox every domain event goes through (emitEvent), and the live stream of them. */
export const eventsModule: Module = { name: 'events', operations: [streamEventsOperation], mount: mountDevEventRoutes };

declare module '../../server/module.js' {
  interface Happenings {
    /** A domain event was recorded in the outbox (inside the emitting transaction): its receivers are fixed now. */
    eventRecorded: RecordedEvent;
  }
}

export interface RecordedEvent {
  eventId: string;
  storeId: string;
  type: string;
  resourceType: string | null;
  resourceId: string | null;
  at: number;
}

export { emitEvent, eventBus, eventDataJson, eventPayload } from './outbox.js';
export { type ResourceType } from './schema.js';
export { deleteEventsCreatedBefore, eventForDelivery, eventIdsAbout } from './outbox.js';
