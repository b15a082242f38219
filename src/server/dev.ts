import { desc } from 'drizzle-orm';
import { z } from 'zod';
import type { H3 } from 'h3';
import { successResponse, errorResponse, newTraceId } from './envelope.js';
import { ApiError, fail } from './errors.js';
import { runDueJobs } from './jobs.js';
import { mailOutbox } from './schema.js';
import type { Services } from './services.js';
import { parseWith } from './validation.js';

/** Helpers that exist only under `svc dev` (never in `svc serve`): time travel, mail, due jobs. */
export function mountDevRoutes(app: H3, services: Services) {
  const docs = `${services.config.origin}/docs/errors`;
  const route = (handler: (body: unknown) => unknown | Promise<unknown>) => async (event: { req: Request }) => {
    const traceId = newTraceId();
    try {
      const text = event.req.method === 'GET' ? '' : await event.req.text();
      let body: unknown = {};
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          throw new ApiError(400, 'VALIDATION_FAILED');
        }
      }
      return successResponse(200, await handler(body));
    } catch (error) {
      return errorResponse(error instanceof ApiError ? error : new ApiError(500, 'INTERNAL_ERROR'), traceId, docs);
    }
  };

  const clockNow = () => ({ kind: services.clock.kind, now: new Date(services.clock.now()).toISOString() });
  app.get('/_dev/v1/clock', route(clockNow));
  app.post('/_dev/v1/clock/advance', route(async (raw) => {
    const { seconds } = parseWith(z.object({ seconds: z.number().positive().max(400 * 86400) }).strict(), raw);
    if (services.clock.kind !== 'manual') throw fail(409, 'CLOCK_NOT_MANUAL');
    services.clock.advance(seconds);
    // Work that came due while time jumped runs before the answer, so the caller sees its effects.
    const jobs = await runDueJobs(services);
    return { ...clockNow(), jobs };
  }));
  app.post('/_dev/v1/jobs/run', route(async () => ({ jobs: await runDueJobs(services) })));
  app.get('/_dev/v1/mail', route(() => ({
    contents: services.db.select().from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(50).all()
      .map((m) => ({ mailId: m.id, to: m.to, subject: m.subject, body: m.body, createdAt: new Date(m.createdAt).toISOString() })),
  })));
}
