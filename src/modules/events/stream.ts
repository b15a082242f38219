import { and, eq, gt, sql } from 'drizzle-orm';
import type { H3, H3Event } from 'h3';
import { z } from 'zod';
import { preparedFor } from '../../db/prepared.js';
import { commaList } from '../../server/formats.js';
import { operationHandler } from '../../server/pipeline.js';
import { defineOperation } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import { emitEvent, eventBus, eventDataJson, eventPayload, eventPayloadSchema } from './outbox.js';
import { events } from './schema.js';
import { EVENT_TYPES, sampleEvent, STREAM_EVENT_TYPES } from '../../kernel/event-types.js';

const HEARTBEAT_MS = 15_000;
const BATCH = 200;
/** What a stream holds in memory at most (plus one message) before it waits for its client to read. */
const QUEUE_BYTES = 64 * 1024;

const rowid = sql<number>`${events}.rowid`;
const statements = preparedFor((db) => ({
  after: db
    .select({
      rowid,
      id: events.id,
      type: events.type,
      createdAt: events.createdAt,
      storeId: events.storeId,
      sequence: events.sequence,
      dataJson: eventDataJson,
    })
    .from(events)
    .where(and(eq(events.storeId, sql.placeholder('storeId')), gt(rowid, sql.placeholder('after'))))
    .orderBy(rowid)
    .limit(sql.placeholder('limit'))
    .prepare(),
  last: db
    .select({ rowid })
    .from(events)
    .orderBy(sql`${rowid} desc`)
    .limit(1)
    .prepare(),
}));

/** The stream is an ordinary operation (token, X-Store-Id, `webhook:r`, strict query) that answers with SSE. */
export const streamEventsOperation = defineOperation({
  operationId: 'streamEvents',
  method: 'GET',
  path: '/v1/events/stream',
  summary: "Server-sent events of the store's new events (svc webhooks listen)",
  tag: 'Event',
  auth: 'store',
  scope: 'webhook:r',
  query: z.object({ types: commaList(z.enum(STREAM_EVENT_TYPES)).optional() }).strict(),
  streams: 'text/event-stream',
  response: eventPayloadSchema,
  handler: (ctx) => streamResponse(ctx.services, ctx.event, ctx.store.id, ctx.query.types ?? null),
});

/**
 * `GET /v1/events/stream`: each new event of the store as one SSE message (`id` is a resume cursor,
 * `event` the type, `data` the body a webhook would carry). `Last-Event-ID` resumes after a drop;
 * otherwise the stream starts with events created after it opened.
 *
 * The events wait in the database, not in memory: the stream reads on from its cursor only while its
 * queue has room (`QUEUE_BYTES`), and the socket's backpressure keeps the queue from draining. A client
 * that reads slowly falls behind and catches up as it reads; it never grows the server's memory.
 */
async function streamResponse(services: Services, event: H3Event, storeId: string, types: string[] | null): Promise<Response> {
  const q = statements(services.db);
  const resumeFrom = Number(event.req.headers.get('last-event-id'));
  let cursor = Number.isSafeInteger(resumeFrom) && resumeFrom > 0 ? resumeFrom : ((await q.last.get())?.rowid ?? 0);
  const encoder = new TextEncoder();
  const bus = eventBus(services.db);
  let push = async () => {};
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const hasRoom = () => controller.desiredSize !== null && controller.desiredSize > 0;
        const send = (text: string) => controller.enqueue(encoder.encode(text));
        // Enqueueing can call `pull` (and so `push`) synchronously: a nested run would send the rest of the
        // batch the outer run is still sending, so it is left to the outer run's next read.
        let pushing = false;
        // An event came in after the running read began: an empty answer may have missed it.
        let notified = false;
        let averageBytes = 1024;
        push = async () => {
          if (!services.db.$client.open) return stop();
          if (pushing) return;
          pushing = true;
          try {
            while (hasRoom()) {
              // Only about what fits the queue is read: rows read and not sent would be read again later.
              const limit = Math.max(1, Math.min(BATCH, Math.ceil(controller.desiredSize! / averageBytes)));
              notified = false;
              const rows = await q.after.all({ storeId, after: cursor, limit });
              if (rows.length === 0) {
                if (notified) continue;
                return;
              }
              for (const row of rows) {
                if (!hasRoom()) return;
                cursor = row.rowid;
                if (types && !types.includes(row.type)) continue;
                const message = `id: ${row.rowid}\nevent: ${row.type}\ndata: ${eventPayload(row)}\n\n`;
                averageBytes = Math.max(64, Math.round(averageBytes * 0.8 + message.length * 0.2));
                send(message);
              }
            }
          } catch {
            // The database went away (or the service is closing): the client reconnects from its last event id.
            stop();
          } finally {
            pushing = false;
          }
        };
        const onEvent = (id: string) => {
          if (id !== storeId) return;
          notified = true;
          void push();
        };
        // A full queue already has data waiting for the client: a heartbeat would only grow it.
        const heartbeat = setInterval(() => hasRoom() && send(': keep-alive\n\n'), HEARTBEAT_MS);
        stop = () => {
          clearInterval(heartbeat);
          bus.off('event', onEvent);
          try {
            controller.close();
          } catch {
            // already closed by the client going away
          }
        };
        bus.on('event', onEvent);
        event.req.signal?.addEventListener('abort', () => stop());
        send(': connected\n\n');
        void push();
      },
      // The client read: catch up from the cursor.
      pull: () => push(),
      cancel: () => stop(),
    },
    new ByteLengthQueuingStrategy({ highWaterMark: QUEUE_BYTES }),
  );
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } });
}

/**
 * `svc webhooks trigger` before checkout exists: emits a real event (sample data unless given) through
 * the outbox, so subscriptions and `listen` see exactly what a purchase would send. Dev mode only.
 */
const devEmit = defineOperation({
  operationId: 'devEmitEvent',
  method: 'POST',
  path: '/_dev/v1/events',
  summary: 'Emit an event in the store (svc dev only)',
  tag: 'Dev',
  auth: 'store',
  scope: 'webhook:rw',
  body: z
    .object({
      type: z.enum(EVENT_TYPES),
      resource: z
        .object({ type: z.enum(['ORDER', 'CLAIM', 'PRODUCT', 'REVIEW', 'INQUIRY']), id: z.string().min(1).max(100) })
        .strict()
        .nullable()
        .optional(),
      data: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  status: 201,
  response: z.object({ eventId: z.string(), sequence: z.number().int().nullable(), type: z.enum(EVENT_TYPES) }),
  handler: async (ctx) => {
    const sample = sampleEvent(ctx.body.type, ctx.now);
    const emitted = await emitEvent(ctx.db, ctx.now, {
      storeId: ctx.store.id,
      type: ctx.body.type,
      resource: ctx.body.resource === undefined ? sample.resource : ctx.body.resource,
      data: ctx.body.data ?? sample.data,
    });
    return { ...emitted, type: ctx.body.type };
  },
});

/** The dev-only emitter is mounted under `svc dev` only, so it never reaches a deployment or its OpenAPI. */
export function mountDevEventRoutes(app: H3, services: Services) {
  if (services.config.mode === 'dev') app.post(devEmit.path, operationHandler(services, devEmit));
}
