import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** Extra fields of an event that no query filters on (list views' product ids, a purchase's item amounts). */
export interface EventData {
  listId?: string;
  productIds?: string[];
  variantId?: string;
  items?: { productId: string; amount: number }[];
  checkoutId?: string;
}

/**
 * Raw visit events, append-only (only the 90-day retention job deletes): what the collector sent and what
 * the buyer API recorded itself (`cart_add`, `checkout_start`, `purchase`). The per-date tables are
 * computed from these; `realtime` reads them directly. No IP, no full URL, only the referrer's host.
 */
export const analyticsEvents = sqliteTable(
  'analytics_events',
  {
    id: text('id').primaryKey(),
    storeId: text('store_id').notNull(),
    visitorId: text('visitor_id').notNull(),
    /** The browser's `svc_sid`; sessions themselves are computed by the rules of spec 01 §5.8. */
    clientSessionId: text('client_session_id'),
    name: text('name').notNull(),
    at: integer('at').notNull(),
    path: text('path'),
    referrerHost: text('referrer_host'),
    utmSource: text('utm_source'),
    utmMedium: text('utm_medium'),
    utmCampaign: text('utm_campaign'),
    device: text('device').notNull(),
    bot: integer('bot', { mode: 'boolean' }).notNull(),
    /** A server-recorded purchase paid with a test payment (counted only with `includeTest`). */
    test: integer('test', { mode: 'boolean' }).notNull(),
    productId: text('product_id'),
    query: text('query'),
    resultCount: integer('result_count'),
    amount: integer('amount'),
    data: text('data', { mode: 'json' }).$type<EventData | null>(),
  },
  (t) => [index('analytics_events_store_at').on(t.storeId, t.at), index('analytics_events_at').on(t.at)],
);

/** Events recorded per visitor in the current minute window (spec 02 §8: 120 per visitor per minute). */
export const analyticsVisitorWindows = sqliteTable(
  'analytics_visitor_windows',
  {
    storeId: text('store_id').notNull(),
    visitorId: text('visitor_id').notNull(),
    windowStart: integer('window_start').notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.visitorId] }), index('analytics_visitor_windows_start').on(t.windowStart)],
);

/** Which visit started a checkout sheet, so the purchase paid later (on the pay page) joins that visit. */
export const analyticsCheckouts = sqliteTable(
  'analytics_checkouts',
  {
    checkoutId: text('checkout_id').primaryKey(),
    storeId: text('store_id').notNull(),
    visitorId: text('visitor_id').notNull(),
    clientSessionId: text('client_session_id'),
    device: text('device').notNull(),
    bot: integer('bot', { mode: 'boolean' }).notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('analytics_checkouts_at').on(t.at)],
);

/** The figures of a computed row (spec 01 §5.8); test-payment purchases are kept apart so `includeTest` adds them. */
const figureColumns = () => ({
  sessions: integer('sessions').notNull(),
  engagedSessions: integer('engaged_sessions').notNull(),
  visitors: integer('visitors').notNull(),
  pageViews: integer('page_views').notNull(),
  dwellSeconds: integer('dwell_seconds').notNull(),
  productViews: integer('product_views').notNull(),
  listViews: integer('list_views').notNull(),
  cartAdds: integer('cart_adds').notNull(),
  checkoutStarts: integer('checkout_starts').notNull(),
  purchases: integer('purchases').notNull(),
  purchaseAmount: integer('purchase_amount').notNull(),
  testPurchases: integer('test_purchases').notNull(),
  testPurchaseAmount: integer('test_purchase_amount').notNull(),
  searches: integer('searches').notNull(),
  zeroResultSearches: integer('zero_result_searches').notNull(),
  excludedBotSessions: integer('excluded_bot_sessions').notNull(),
});

/**
 * The computed metrics per store, Korean date, dimension and key: `day` (key ''), `product`, `source`,
 * `device`, `path`, `term`, `step`.
 */
export const analyticsDayRows = sqliteTable(
  'analytics_day_rows',
  {
    storeId: text('store_id').notNull(),
    date: text('date').notNull(),
    dimension: text('dimension').notNull(),
    key: text('key').notNull(),
    ...figureColumns(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.dimension, t.date, t.key] })],
);

/**
 * The day rows summed per calendar month (`2026-11`), kept by triggers on `analytics_day_rows`
 * (drizzle/0029, drizzle/postgres/setup.sql) whoever writes them: a report over 92 days reads a month's
 * row where it would read 30 day rows. `days` counts the day rows summed (a key with none left is no row).
 */
export const analyticsMonthRows = sqliteTable(
  'analytics_month_rows',
  {
    storeId: text('store_id').notNull(),
    month: text('month').notNull(),
    dimension: text('dimension').notNull(),
    key: text('key').notNull(),
    days: integer('days').notNull(),
    ...figureColumns(),
  },
  (t) => [primaryKey({ columns: [t.storeId, t.dimension, t.month, t.key] })],
);

/** When the aggregation job last finished (one row), the `lastComputedAt` of every report. */
export const analyticsRuns = sqliteTable('analytics_runs', {
  id: text('id').primaryKey(),
  computedAt: integer('computed_at').notNull(),
});
