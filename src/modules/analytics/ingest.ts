import { eq, sql } from 'drizzle-orm';
import { isbot } from 'isbot';
import { z } from 'zod';
import { transaction, type Db } from '../../db/client.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { instantInput } from '../../server/validation.js';
import type { Services } from '../../server/services.js';
import { addDays, today } from '../../kernel/dates.js';
import { kstDayStart } from '../orders/index.js';
import { allowedOrigins } from '../storefront/index.js';
import { analyticsCheckouts, analyticsEvents, analyticsVisitorWindows, type EventData } from './schema.js';

/** Spec 02 §8 (analytics row). */
export const LIMITS = { eventsPerRequest: 50, requestBytes: 32 * 1024, perVisitorPerMinute: 120, retentionDays: 90 } as const;
const DAYS_ACCEPTED = 3;
const FUTURE_SLACK_MS = 5 * 60_000;

const shortText = (max: number) => z.string().max(max);
const utm = z.object({ source: shortText(100).nullish(), medium: shortText(100).nullish(), campaign: shortText(100).nullish() }).strict();
export const collectedEvent = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
    at: instantInput,
    path: shortText(2048),
    referrer: shortText(2048).nullish(),
    utm: utm.nullish(),
    consent: z.enum(['granted', 'pending', 'denied']).optional(),
    productId: shortText(64).optional(),
    variantId: shortText(64).optional(),
    listId: shortText(100).optional(),
    productIds: z.array(shortText(64)).max(100).optional(),
    query: shortText(200).optional(),
    resultCount: z.number().int().min(0).max(1_000_000).optional(),
  })
  .strict();
/** At most 50 events are taken; more in one request are dropped (still 204), so the array itself is not capped. */
export const eventsBody = z.object({ events: z.array(collectedEvent).max(1000) }).strict();
type CollectedEvent = z.output<typeof collectedEvent>;

/** The events the server records itself from the buyer API; the collector may not send them. */
const SERVER_EVENTS = new Set(['cart_add', 'checkout_start', 'purchase']);
const VISIT_ID = /^[A-Za-z0-9_-]{8,64}$/;

export type Device = 'MOBILE' | 'TABLET' | 'DESKTOP';
export function deviceOf(userAgent: string): Device {
  if (/iPad|Tablet|PlayBook|Silk|Android(?!.*Mobile)/i.test(userAgent)) return 'TABLET';
  if (/Mobi|iPhone|iPod|Android|Windows Phone/i.test(userAgent)) return 'MOBILE';
  return 'DESKTOP';
}

/** The visit headers of spec 02 §5, or null when either is missing or malformed. */
export function visitOf(headers: Headers): { visitorId: string; sessionId: string } | null {
  const visitorId = headers.get('x-svc-visitor');
  const sessionId = headers.get('x-svc-session');
  if (!visitorId || !sessionId || !VISIT_ID.test(visitorId) || !VISIT_ID.test(sessionId)) return null;
  return { visitorId, sessionId };
}

// ---------------------------------------------------------------------------------------------------
// Origins

const originOf = (url: string | null) => {
  if (!url) return null;
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return null;
  }
};

/**
 * Spec 02 §6: a browser sending from another origin gets 403 ORIGIN_NOT_ALLOWED; a request without an
 * `Origin` whose page (`Referer`) lies outside the list is answered 204 with its events dropped (false).
 */
async function originAccepted(services: Services, storeId: string, headers: Headers, now: number): Promise<boolean> {
  const allowed = await allowedOrigins(services, storeId, now);
  if (!allowed) return true;
  const origin = originOf(headers.get('origin'));
  if (origin) {
    if (!allowed.has(origin)) throw fail(403, 'ORIGIN_NOT_ALLOWED', { origin });
    return true;
  }
  const page = originOf(headers.get('referer'));
  return page === null || allowed.has(page);
}

// ---------------------------------------------------------------------------------------------------
// Writes

type EventRow = typeof analyticsEvents.$inferInsert;
const COLUMNS = [
  'id',
  'storeId',
  'visitorId',
  'clientSessionId',
  'name',
  'at',
  'path',
  'referrerHost',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'device',
  'bot',
  'test',
  'productId',
  'query',
  'resultCount',
  'amount',
  'data',
] as const;

const q = preparedFor((db) => ({
  /** One multi-row insert per batch size (1…50), prepared once each. */
  inserts: new Map<number, { run(values: Record<string, unknown>): Promise<unknown> }>(),
  /**
   * Takes `n` of the visitor's per-minute allowance in one guarded statement: a window older than a minute
   * starts over. The returned count, minus `n`, is what the window had used before this request.
   */
  reserve: db
    .insert(analyticsVisitorWindows)
    .values({ storeId: sql.placeholder('storeId'), visitorId: sql.placeholder('visitorId'), windowStart: sql.placeholder('now'), count: sql.placeholder('n') })
    .onConflictDoUpdate({
      target: [analyticsVisitorWindows.storeId, analyticsVisitorWindows.visitorId],
      set: {
        count: sql`CASE WHEN ${analyticsVisitorWindows.windowStart} <= ${sql.placeholder('windowOpenedBefore')} THEN ${sql.placeholder('n')} ELSE ${analyticsVisitorWindows.count} + ${sql.placeholder('n')} END`,
        windowStart: sql`CASE WHEN ${analyticsVisitorWindows.windowStart} <= ${sql.placeholder('windowOpenedBefore')} THEN ${sql.placeholder('now')} ELSE ${analyticsVisitorWindows.windowStart} END`,
      },
    })
    .returning({ count: analyticsVisitorWindows.count })
    .prepare(),
  link: db
    .insert(analyticsCheckouts)
    .values({
      checkoutId: sql.placeholder('checkoutId'),
      storeId: sql.placeholder('storeId'),
      visitorId: sql.placeholder('visitorId'),
      clientSessionId: sql.placeholder('clientSessionId'),
      device: sql.placeholder('device'),
      bot: sql.placeholder('bot'),
      at: sql.placeholder('at'),
    })
    .onConflictDoNothing()
    .prepare(),
  linkOf: db
    .select()
    .from(analyticsCheckouts)
    .where(eq(analyticsCheckouts.checkoutId, sql.placeholder('checkoutId')))
    .prepare(),
}));

async function insertEvents(db: Db, rows: EventRow[]) {
  if (rows.length === 0) return;
  const statements = q(db).inserts;
  let statement = statements.get(rows.length);
  if (!statement) {
    const values = rows.map((_, i) => Object.fromEntries(COLUMNS.map((c) => [c, sql.placeholder(`${c}${i}`)])));
    statement = db
      .insert(analyticsEvents)
      .values(values as never)
      .prepare();
    statements.set(rows.length, statement);
  }
  const params: Record<string, unknown> = {};
  rows.forEach((row, i) => {
    for (const c of COLUMNS) params[`${c}${i}`] = row[c] ?? null;
  });
  await statement.run(params);
}

/** How many of `n` events the visitor may still record this minute. */
async function reserve(db: Db, storeId: string, visitorId: string, n: number, now: number): Promise<number> {
  const { count } = await q(db).reserve.get({ storeId, visitorId, n, now, windowOpenedBefore: now - 60_000 });
  const usedBefore = count - n;
  return Math.max(0, Math.min(n, LIMITS.perVisitorPerMinute - usedBefore));
}

const hostOf = (url: string | null | undefined) => {
  if (!url) return null;
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
};

/** Only the path is kept (no query string, no fragment): spec 02 §6. */
const pathOf = (path: string) => {
  const cut = path.search(/[?#]/);
  const p = cut === -1 ? path : path.slice(0, cut);
  return (p.startsWith('/') ? p : `/${p}`).slice(0, 512);
};

/**
 * `POST /storefront/v1/events`: validated events of an allowed origin, at most 50 per request and 120 per
 * visitor per minute, are stored in one insert; everything beyond is dropped and the answer stays 204.
 */
export async function ingestEvents(services: Services, storeId: string, headers: Headers, body: { events: CollectedEvent[] }, now: number) {
  const accepted = await originAccepted(services, storeId, headers, now);
  const visit = visitOf(headers);
  if (!accepted || !visit) return;
  if (Number(headers.get('content-length') ?? 0) > LIMITS.requestBytes) return;
  const oldest = kstDayStart(addDays(today(now), -(DAYS_ACCEPTED - 1)));
  const pageHost = hostOf(headers.get('origin') ?? headers.get('referer'));
  const events = body.events
    .slice(0, LIMITS.eventsPerRequest)
    .filter((e) => e.consent !== 'denied' && !SERVER_EVENTS.has(e.name) && Date.parse(e.at) >= oldest);
  if (events.length === 0) return;
  const userAgent = headers.get('user-agent') ?? '';
  const device = deviceOf(userAgent);
  await transaction(services.db, async () => {
    const allowance = await reserve(services.db, storeId, visit.visitorId, events.length, now);
    // A visitor past the per-minute limit behaves like a script: what it still records is flagged.
    const bot = isbot(userAgent) || allowance < events.length;
    await insertEvents(
      services.db,
      events.slice(0, allowance).map((e): EventRow => {
        const referrerHost = hostOf(e.referrer);
        const data: EventData = {};
        if (e.listId) data.listId = e.listId;
        if (e.productIds) data.productIds = e.productIds;
        if (e.variantId) data.variantId = e.variantId;
        return {
          id: newId('aev', now),
          storeId,
          visitorId: visit.visitorId,
          clientSessionId: visit.sessionId,
          name: e.name,
          at: Math.min(Date.parse(e.at), now + FUTURE_SLACK_MS),
          path: pathOf(e.path),
          referrerHost: referrerHost === pageHost ? null : referrerHost,
          utmSource: e.utm?.source || null,
          utmMedium: e.utm?.medium || null,
          utmCampaign: e.utm?.campaign || null,
          device,
          bot,
          test: false,
          productId: e.productId ?? null,
          query: e.query ?? null,
          resultCount: e.resultCount ?? null,
          amount: null,
          data: Object.keys(data).length ? data : null,
        };
      }),
    );
  });
}

// ---------------------------------------------------------------------------------------------------
// Events the buyer API records itself

interface ServerEvent {
  storeId: string;
  name: 'cart_add' | 'checkout_start' | 'purchase';
  visitorId: string;
  clientSessionId: string | null;
  device: string;
  bot: boolean;
  test?: boolean;
  productId?: string | null;
  amount?: number | null;
  data?: EventData | null;
}

function serverEventRow(e: ServerEvent, now: number): EventRow {
  return {
    id: newId('aev', now),
    storeId: e.storeId,
    visitorId: e.visitorId,
    clientSessionId: e.clientSessionId,
    name: e.name,
    at: now,
    path: null,
    referrerHost: null,
    utmSource: null,
    utmMedium: null,
    utmCampaign: null,
    device: e.device,
    bot: e.bot,
    test: e.test ?? false,
    productId: e.productId ?? null,
    query: null,
    resultCount: null,
    amount: e.amount ?? null,
    data: e.data ?? null,
  };
}

/** What the buyer API knows of the visit from the request's headers (spec 02 §5); null: nothing is recorded. */
function requestVisit(headers: Headers) {
  const visit = visitOf(headers);
  if (!visit) return null;
  const userAgent = headers.get('user-agent') ?? '';
  return { visitorId: visit.visitorId, clientSessionId: visit.sessionId, device: deviceOf(userAgent), bot: isbot(userAgent) };
}

/** A cart add by a visit that sent its headers, inside the add's transaction. */
export async function recordCartAdd(db: Db, headers: Headers, storeId: string, productId: string, now: number) {
  const visit = requestVisit(headers);
  if (visit) await insertEvents(db, [serverEventRow({ storeId, name: 'cart_add', productId, ...visit }, now)]);
}

/** A checkout sheet made by a visit: recorded, and remembered so the purchase paid later joins the visit. */
export async function recordCheckoutStart(db: Db, headers: Headers, storeId: string, checkoutId: string, now: number) {
  const visit = requestVisit(headers);
  if (!visit) return;
  await insertEvents(db, [serverEventRow({ storeId, name: 'checkout_start', data: { checkoutId }, ...visit }, now)]);
  await q(db).link.run({ checkoutId, storeId, ...visit, at: now });
}

/**
 * The order of a sheet started by a visit was paid (in the order-writing transaction): the payment amount
 * including shipping, and each product's item amount excluding shipping (spec 01 §5.8).
 */
export async function recordPurchase(
  db: Db,
  order: { storeId: string; checkoutId: string; testPayment: boolean; amounts: { totalAmount: number } },
  items: { productId: string; amount: number }[],
  now: number,
) {
  const link = await q(db).linkOf.get({ checkoutId: order.checkoutId });
  if (!link || link.storeId !== order.storeId) return;
  await insertEvents(db, [
    serverEventRow(
      {
        storeId: order.storeId,
        name: 'purchase',
        visitorId: link.visitorId,
        clientSessionId: link.clientSessionId,
        device: link.device,
        bot: link.bot,
        test: order.testPayment,
        amount: order.amounts.totalAmount,
        data: { checkoutId: order.checkoutId, items: items.map((i) => ({ productId: i.productId, amount: i.amount })) },
      },
      now,
    ),
  ]);
}

/** Raw events, visitor windows and checkout links older than 90 days go (spec 02 §8). */
export async function purgeOldEvents(db: Db, now: number): Promise<number> {
  const before = now - LIMITS.retentionDays * 86_400_000;
  const events = await db
    .delete(analyticsEvents)
    .where(sql`${analyticsEvents.at} < ${before}`)
    .run();
  await db
    .delete(analyticsCheckouts)
    .where(sql`${analyticsCheckouts.at} < ${before}`)
    .run();
  await db
    .delete(analyticsVisitorWindows)
    .where(sql`${analyticsVisitorWindows.windowStart} < ${now - 3_600_000}`)
    .run();
  return Number((events as { changes?: number }).changes ?? 0);
}
