import type { Module } from '../../server/module.js';
import { mountEventRoutes } from './stream.js';

/** The outbox every domain event goes through (emitEvent), and the live stream of them. */
export const eventsModule: Module = { name: 'events', mount: mountEventRoutes };
