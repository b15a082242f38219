import type { Module } from '../../server/module.js';
import { mountDevEventRoutes, streamEventsOperation } from './stream.js';

/** The outbox every domain event goes through (emitEvent), and the live stream of them. */
export const eventsModule: Module = { name: 'events', operations: [streamEventsOperation], mount: mountDevEventRoutes };
