import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { calendarDate, instant, won } from '../../server/responses.js';
import { datesIn } from '../../kernel/dates.js';
import { paymentsWithLastAttempt } from '../checkout/index.js';
import { kstDayStart } from '../orders/index.js';
import { cutSessions } from './sessions.js';
import { dayRows, type Dimension, type Figure, type Figures, lastComputedAt, STEPS, totalsByKey, zeroFigures } from './metrics.js';

/** The eight reports of spec 01 §4.4 over the per-date rows; `realtime` over raw events. */

export const REPORTS = ['overview', 'products', 'sources', 'devices', 'pages', 'search', 'checkout', 'realtime'] as const;
export type ReportName = (typeof REPORTS)[number];
export const PAYMENT_RESULTS = ['COMPLETED', 'LEFT_BEFORE_WINDOW', 'WINDOW_CANCELED', 'APPROVAL_REFUSED', 'WINDOW_ERROR', 'OTHER', 'IN_PROGRESS'] as const;
export const REALTIME_WINDOW_MS = 5 * 60_000;

export interface Period {
  from: string;
  to: string;
  includeTest: boolean;
}

const count = z.number().int();
const rate = z.number().nullable().describe('Product views ÷ list views, in percent (may exceed 100); null without list views');
const visitMetrics = {
  sessions: count,
  engagedSessions: count,
  visitors: count.describe('Sum of daily unique visitors'),
  pageViews: count,
  dwellSeconds: count,
  productViews: count,
  cartAdds: count,
  checkoutStarts: count,
  purchases: count,
  purchaseAmount: won,
  clickThroughRate: rate,
};
const trafficMetrics = {
  sessions: count,
  engagedSessions: count,
  visitors: count,
  pageViews: count,
  dwellSeconds: count,
  cartAdds: count,
  checkoutStarts: count,
  purchases: count,
  purchaseAmount: won,
};
const productMetrics = {
  sessions: count,
  productViews: count,
  cartAdds: count,
  purchases: count,
  purchaseAmount: won.describe('Item amounts, shipping excluded'),
  clickThroughRate: rate,
};
const pageMetrics = { sessions: count, visitors: count, pageViews: count, dwellSeconds: count };
const searchMetrics = {
  searches: count,
  sessions: count,
  zeroResultSearches: count,
  purchases: count.describe('Purchases after the search, same session and date'),
  purchaseAmount: won,
};

const frame = {
  from: calendarDate,
  to: calendarDate,
  timezone: z.literal('Asia/Seoul'),
  includeTest: z.boolean(),
  lastComputedAt: instant.nullable(),
  excludedBotSessions: count,
};
const report = <S extends z.ZodRawShape, R extends z.ZodRawShape>(summary: S, row: R, extra: z.ZodRawShape = {}) =>
  z.object({ ...frame, summary: z.object(summary), rows: z.array(z.object(row)), ...extra });

export const reportViews = {
  overview: report(visitMetrics, { date: calendarDate, ...visitMetrics }),
  products: report(productMetrics, { productId: z.string(), ...productMetrics }),
  sources: report(trafficMetrics, {
    source: z.string().describe('utm_source, else the referrer host; DIRECT without either; UNKNOWN for server-only sessions'),
    ...trafficMetrics,
  }),
  devices: report(trafficMetrics, { device: z.string().describe('MOBILE, TABLET or DESKTOP'), ...trafficMetrics }),
  pages: report(pageMetrics, { path: z.string(), ...pageMetrics }),
  search: report(searchMetrics, { term: z.string(), ...searchMetrics }, { zeroResultTerms: z.array(z.object({ term: z.string(), searches: count })) }),
  checkout: report(
    { sessions: count, checkoutStarts: count, purchases: count, purchaseAmount: won },
    {
      step: z.enum(STEPS),
      sessions: count,
      rate: z.number().nullable().describe('Sessions of the step ÷ all sessions, in percent'),
    },
    { paymentResults: z.array(z.object({ result: z.enum(PAYMENT_RESULTS), count })) },
  ),
  realtime: z.object({
    from: instant,
    to: instant,
    timezone: z.literal('Asia/Seoul'),
    includeTest: z.boolean(),
    lastComputedAt: instant.nullable(),
    excludedBotSessions: count.describe('Sessions of the window left out for a bot-flagged event'),
    summary: z.object({
      visitors: count,
      pageViews: count,
      productViews: count,
      cartAdds: count,
      checkoutStarts: count,
      purchases: count,
      purchaseAmount: won,
    }),
    rows: z.array(z.object({ path: z.string(), pageViews: count, visitors: count })),
  }),
};

/** Adds the test-payment purchases in when asked. */
const withTest = (f: Figures, includeTest: boolean) =>
  includeTest ? { ...f, purchases: f.purchases + f.testPurchases, purchaseAmount: f.purchaseAmount + f.testPurchaseAmount } : f;

const ctr = (f: Figures) => (f.listViews === 0 ? null : Math.round((f.productViews / f.listViews) * 1000) / 10);

function sum(rows: Figures[]): Figures {
  const total = zeroFigures();
  for (const r of rows) for (const k of Object.keys(total) as (keyof Figures)[]) total[k] += r[k];
  return total;
}

const pick = <K extends keyof Figures>(f: Figures, keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, f[k]])) as Pick<Figures, K>;
const VISIT_KEYS = [
  'sessions',
  'engagedSessions',
  'visitors',
  'pageViews',
  'dwellSeconds',
  'productViews',
  'cartAdds',
  'checkoutStarts',
  'purchases',
  'purchaseAmount',
] as const;
const TRAFFIC_KEYS = [
  'sessions',
  'engagedSessions',
  'visitors',
  'pageViews',
  'dwellSeconds',
  'cartAdds',
  'checkoutStarts',
  'purchases',
  'purchaseAmount',
] as const;
const PRODUCT_KEYS = ['sessions', 'productViews', 'cartAdds', 'purchases', 'purchaseAmount'] as const;
const PAGE_KEYS = ['sessions', 'visitors', 'pageViews', 'dwellSeconds'] as const;
const SEARCH_KEYS = ['searches', 'sessions', 'zeroResultSearches', 'purchases', 'purchaseAmount'] as const;

/** One dimension summed over the period per key (the `shown` figures, and what includeTest adds), largest first by `order`. */
async function byKey(db: Db, storeId: string, dimension: Dimension, p: Period, order: Figure, shown: readonly Figure[], includeTest = p.includeTest) {
  const figures = [...new Set<Figure>([...shown, order, 'testPurchases', 'testPurchaseAmount'])];
  return (await totalsByKey(db, storeId, dimension, p.from, p.to, figures))
    .map(({ key, ...f }) => ({ key, figures: withTest(f, includeTest) }))
    .sort((a, b) => b.figures[order] - a.figures[order] || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export async function analyticsReport(db: Db, storeId: string, name: Exclude<ReportName, 'realtime'>, p: Period, now: number) {
  const days = await dayRows(db, storeId, 'day', p.from, p.to);
  const computed = await lastComputedAt(db);
  const total = withTest(sum(days), p.includeTest);
  const base = {
    from: p.from,
    to: p.to,
    timezone: 'Asia/Seoul' as const,
    includeTest: p.includeTest,
    lastComputedAt: computed === null ? null : isoAt(computed),
    excludedBotSessions: total.excludedBotSessions,
  };
  switch (name) {
    case 'overview': {
      const byDate = new Map(days.map((d) => [d.date, withTest(d, p.includeTest)]));
      const rows = datesIn(p.from, p.to).map((date) => {
        const f = byDate.get(date) ?? zeroFigures();
        return { date, ...pick(f, VISIT_KEYS), clickThroughRate: ctr(f) };
      });
      return { ...base, summary: { ...pick(total, VISIT_KEYS), clickThroughRate: ctr(total) }, rows };
    }
    case 'products': {
      const products = await byKey(db, storeId, 'product', p, 'productViews', [...PRODUCT_KEYS, 'listViews']);
      const rows = products.map(({ key, figures }) => ({ productId: key, ...pick(figures, PRODUCT_KEYS), clickThroughRate: ctr(figures) }));
      const all = sum(products.map((r) => r.figures));
      return { ...base, summary: { ...pick(all, PRODUCT_KEYS), sessions: total.sessions, clickThroughRate: ctr(all) }, rows };
    }
    case 'sources':
    case 'devices': {
      const rows = (await byKey(db, storeId, name === 'sources' ? 'source' : 'device', p, 'sessions', TRAFFIC_KEYS)).map(({ key, figures }) => ({
        [name === 'sources' ? 'source' : 'device']: key,
        ...pick(figures, TRAFFIC_KEYS),
      }));
      return { ...base, summary: pick(total, TRAFFIC_KEYS), rows };
    }
    case 'pages': {
      const rows = (await byKey(db, storeId, 'path', p, 'pageViews', PAGE_KEYS)).map(({ key, figures }) => ({ path: key, ...pick(figures, PAGE_KEYS) }));
      return { ...base, summary: pick(total, PAGE_KEYS), rows };
    }
    case 'search': {
      const terms = await byKey(db, storeId, 'term', p, 'searches', SEARCH_KEYS);
      const rows = terms.map(({ key, figures }) => ({ term: key, ...pick(figures, SEARCH_KEYS) }));
      return {
        ...base,
        summary: pick(sum(terms.map((t) => t.figures)), SEARCH_KEYS),
        rows,
        zeroResultTerms: terms
          .filter((t) => t.figures.zeroResultSearches > 0)
          .map((t) => ({ term: t.key, searches: t.figures.zeroResultSearches }))
          .sort((a, b) => b.searches - a.searches || a.term.localeCompare(b.term)),
      };
    }
    case 'checkout': {
      const steps = new Map((await byKey(db, storeId, 'step', p, 'sessions', ['sessions'], false)).map(({ key, figures }) => [key, figures]));
      const sessionsOf = (step: string) => {
        const f = steps.get(step);
        return f ? f.sessions + (p.includeTest ? f.testPurchases : 0) : 0;
      };
      const all = sessionsOf('SESSION');
      const rows = STEPS.map((step) => ({ step, sessions: sessionsOf(step), rate: all === 0 ? null : Math.round((sessionsOf(step) / all) * 1000) / 10 }));
      return {
        ...base,
        summary: { sessions: total.sessions, checkoutStarts: total.checkoutStarts, purchases: total.purchases, purchaseAmount: total.purchaseAmount },
        rows,
        paymentResults: await paymentResults(db, storeId, p, now),
      };
    }
  }
}

/**
 * Spec 01 §5.8 payment result, per payment request made in the period: its outcome, read from the
 * payment and its last window (attempt).
 */
async function paymentResults(db: Db, storeId: string, p: Period, now: number) {
  const list = await paymentsWithLastAttempt(db, storeId, kstDayStart(p.from), kstDayStart(p.to, 1), p.includeTest);
  const counts = new Map<(typeof PAYMENT_RESULTS)[number], number>(PAYMENT_RESULTS.map((r) => [r, 0]));
  for (const pay of list) {
    const result =
      pay.status === 'COMPLETED'
        ? 'COMPLETED'
        : pay.status === 'CONFIRMING' || pay.attempt === 'CONFIRMING'
          ? 'IN_PROGRESS'
          : pay.attempt === 'REFUSED'
            ? 'APPROVAL_REFUSED'
            : pay.attempt === 'CANCELED'
              ? 'WINDOW_CANCELED'
              : pay.attempt === 'WINDOW_ERROR'
                ? 'WINDOW_ERROR'
                : pay.attempt === null || pay.attempt === 'READY'
                  ? pay.status === 'OPEN' && pay.expiresAt > now
                    ? 'IN_PROGRESS'
                    : 'LEFT_BEFORE_WINDOW'
                  : 'OTHER';
    counts.set(result, counts.get(result)! + 1);
  }
  return PAYMENT_RESULTS.map((result) => ({ result, count: counts.get(result)! }));
}

/** A raw event as the realtime report reads it. */
interface RealtimeEvent {
  visitorId: string;
  name: string;
  path: string | null;
  bot: boolean;
  test: boolean;
  amount: number | null;
  utmCampaign: string | null;
  at: number;
}

/** The last 5 minutes straight from raw events (no aggregation wait); bot sessions are left out and counted. */
export async function realtimeReport(db: Db, storeId: string, includeTest: boolean, now: number) {
  const from = now - REALTIME_WINDOW_MS;
  const rows = (await db.$client
    .prepare(
      'SELECT visitor_id, name, path, bot, test, amount, utm_campaign, at FROM analytics_events WHERE store_id = ? AND at >= ? AND at <= ? ORDER BY at, id',
    )
    .raw()
    .all(storeId, from, now)) as [string, string, string | null, unknown, unknown, number | null, string | null, number][];
  const byVisitor = new Map<string, RealtimeEvent[]>();
  for (const [visitorId, name, path, bot, test, amount, utmCampaign, at] of rows) {
    const events = byVisitor.get(visitorId) ?? [];
    events.push({ visitorId, name, path, bot: Boolean(Number(bot)), test: Boolean(Number(test)), amount, utmCampaign, at: Number(at) });
    byVisitor.set(visitorId, events);
  }
  // Spec 01 §5.8: a session with a bot-flagged event is left out whole; the visitor's other sessions count.
  let excludedBotSessions = 0;
  const counted: RealtimeEvent[] = [];
  for (const events of byVisitor.values()) {
    for (const session of cutSessions(events)) {
      if (session.some((e) => e.bot)) excludedBotSessions++;
      else counted.push(...session);
    }
  }
  const visitors = new Set<string>();
  const summary = { visitors: 0, pageViews: 0, productViews: 0, cartAdds: 0, checkoutStarts: 0, purchases: 0, purchaseAmount: 0 };
  const paths = new Map<string, { pageViews: number; visitors: Set<string> }>();
  for (const { visitorId, name, path, test, amount } of counted) {
    visitors.add(visitorId);
    if (name === 'page') {
      summary.pageViews++;
      const entry = paths.get(path ?? '/') ?? { pageViews: 0, visitors: new Set<string>() };
      entry.pageViews++;
      entry.visitors.add(visitorId);
      paths.set(path ?? '/', entry);
    } else if (name === 'product_view') summary.productViews++;
    else if (name === 'cart_add') summary.cartAdds++;
    else if (name === 'checkout_start') summary.checkoutStarts++;
    else if (name === 'purchase' && (includeTest || !test)) {
      summary.purchases++;
      summary.purchaseAmount += Number(amount ?? 0);
    }
  }
  summary.visitors = visitors.size;
  const computed = await lastComputedAt(db);
  return {
    from: isoAt(from),
    to: isoAt(now),
    timezone: 'Asia/Seoul' as const,
    includeTest,
    lastComputedAt: computed === null ? null : isoAt(computed),
    excludedBotSessions,
    summary,
    rows: [...paths]
      .map(([path, e]) => ({ path, pageViews: e.pageViews, visitors: e.visitors.size }))
      .sort((a, b) => b.pageViews - a.pageViews || a.path.localeCompare(b.path)),
  };
}
