import type { Module } from '../../server/module.js';
import { webhookOperations } from './operations.js';
import { deliveryJob, deliveryWorker, retentionJob } from './worker.js';

export const webhooksModule: Module = {
  name: 'webhooks',
  operations: webhookOperations,
  jobs: [deliveryJob, retentionJob],
  // The worker starts with the server so new events are sent at once, not on the next clock tick.
  mount: (_app, services) => void deliveryWorker(services),
};
