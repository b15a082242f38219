import type { Module } from '../../server/module.js';
import { webhookOperations } from './operations.js';
import { queueDeliveries } from './receivers.js';
import { deliveryJob, deliveryWorker } from './worker.js';
import { retentionJob } from './retention.js';

export const webhooksModule: Module = {
  name: 'webhooks',
  operations: webhookOperations,
  jobs: [deliveryJob, retentionJob],
  on: { eventRecorded: queueDeliveries },
  // The worker starts with the server so new events are sent at once, not on the next clock tick.
  mount: (_app, services) => void deliveryWorker(services),
};

export { subscribed } from './receivers.js';
