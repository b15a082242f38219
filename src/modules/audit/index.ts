import { and, eq, lt } from 'drizzle-orm';
import type { Module } from '../../server/module.js';
import { apiLogJobs, listApiLogs } from './api-log.js';
import { flushApiLog, recordApiRequest } from './api-log-buffer.js';
import { auditOperations } from './operations.js';
import { auditLogs } from './schema.js';
import { writeAudit } from './service.js';

const YEAR_MS = 365 * 24 * 3600 * 1000;

export const auditModule: Module = {
  name: 'audit',
  operations: [...auditOperations, listApiLogs],
  requestHooks: { requestAnswered: writeAudit, requestFinished: recordApiRequest },
  // The API log's last records are written before the database closes.
  onClose: async (services) => {
    await flushApiLog(services);
  },
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
    ...apiLogJobs,
  ],
};

export { writeAudit } from './service.js';
export { executionRecordOfApproval } from './service.js';
