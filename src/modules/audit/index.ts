import { and, eq, lt } from 'drizzle-orm';
import type { Module } from '../../server/module.js';
import { auditOperations } from './operations.js';
import { auditLogs } from './schema.js';
import { writeAudit } from './service.js';

const YEAR_MS = 365 * 24 * 3600 * 1000;

export const auditModule: Module = {
  name: 'audit',
  operations: auditOperations,
  requestHooks: { requestAnswered: writeAudit },
  jobs: [
    {
      // Request records are kept one year (spec 01 §5.9); domain records of refunds and cancels are kept for good.
      name: 'audit.expire-requests',
      run: async (services, now) =>
        (
          await services.db
            .delete(auditLogs)
            .where(and(eq(auditLogs.kind, 'REQUEST'), lt(auditLogs.createdAt, now - YEAR_MS)))
            .run()
        ).changes,
    },
  ],
};

export { writeAudit } from './service.js';
export { executionRecordOfApproval } from './service.js';
