import { timingSafeEqual } from 'node:crypto';
import { desc } from 'drizzle-orm';
import { z } from 'zod';
import type { H3, H3Event } from 'h3';
import { readJsonBody } from './body.js';
import { successResponse, errorResponse, newTraceId, toApiError } from './envelope.js';
import { fail } from './errors.js';
import { runDueJobs } from './jobs.js';
import { mailOutbox } from './schema.js';
import type { Services } from './services.js';
import { parseWith } from './validation.js';

const DEV_BODY_LIMIT = 64 * 1024;

/**
 * A `/_dev` route answering in the envelope: its JSON body read like the API's (size, UTF-8, type, depth
 * limits), and any fault answered as an error envelope, never a stack trace.
 */
export function devRoute(services: Services, handler: (body: unknown, event: H3Event) => unknown) {
  const docs = `${services.config.origin}/docs/errors`;
  return async (event: H3Event) => {
    const traceId = newTraceId();
    try {
      const body = event.req.method === 'GET' ? {} : await readJsonBody(event, DEV_BODY_LIMIT);
      return successResponse(200, await handler(body, event));
    } catch (error) {
      return errorResponse(toApiError(error, traceId), traceId, docs);
    }
  };
}

/**
 * An operator route (`/_operator/v1`, for whoever runs the deployment, not a store): a devRoute that first
 * checks the bearer secret the service was started with (`SVC_OPERATOR_TOKEN`).
 */
export function operatorRoute(services: Services, handler: (body: unknown, event: H3Event) => unknown) {
  const secret = Buffer.from(services.config.operatorToken ?? '');
  return devRoute(services, (body, event) => {
    const given = Buffer.from(/^Bearer (.+)$/.exec(event.req.headers.get('authorization') ?? '')?.[1] ?? '');
    if (!secret.length || given.length !== secret.length || !timingSafeEqual(given, secret)) throw fail(401, 'UNAUTHORIZED');
    return handler(body, event);
  });
}

/** Helpers that exist only under `svc dev` (never in `svc serve`): time travel, mail, due jobs. */
export function mountDevRoutes(app: H3, services: Services) {
  const route = (handler: (body: unknown) => unknown) => devRoute(services, handler);

  const clockNow = () => ({ kind: services.clock.kind, now: new Date(services.clock.now()).toISOString() });
  app.get('/_dev/v1/clock', route(clockNow));
  app.post(
    '/_dev/v1/clock/advance',
    route(async (raw) => {
      const { seconds } = parseWith(
        z
          .object({
            seconds: z
              .number()
              .positive()
              .max(400 * 86400),
          })
          .strict(),
        raw,
      );
      if (services.clock.kind !== 'manual') throw fail(409, 'CLOCK_NOT_MANUAL');
      services.clock.advance(seconds);
      // Work that came due while time jumped runs before the answer, so the caller sees its effects.
      const jobs = await runDueJobs(services);
      return { ...clockNow(), jobs };
    }),
  );
  app.post(
    '/_dev/v1/jobs/run',
    route(async () => ({ jobs: await runDueJobs(services) })),
  );
  app.get(
    '/_dev/v1/mail',
    route(async () => ({
      contents: (await services.db.select().from(mailOutbox).orderBy(desc(mailOutbox.id)).limit(50).all()).map((m) => ({
        mailId: m.id,
        to: m.to,
        subject: m.subject,
        body: m.body,
        createdAt: new Date(m.createdAt).toISOString(),
      })),
    })),
  );
}
