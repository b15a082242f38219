import { seoulDateOf } from '../../db/clock.js';
import type { EventData } from './schema.js';
import { zeroFigures, type Dimension, type Figure, type Figures } from './metrics.js';

/**
 * Sessions and metrics of spec 01 §5.8, computed from raw events into per-Korean-date rows. Pure over an
 * ordered event stream (`accumulate`), so the test suite and the bench drive the same code as the job.
 */

export const IDLE_MS = 30 * 60_000;
export const PAGE_DWELL_CAP_MS = 30 * 60_000;
export const ENGAGED_DWELL_MS = 10_000;

export interface RawEvent {
  visitorId: string;
  name: string;
  at: number;
  path: string | null;
  referrerHost: string | null;
  utmSource: string | null;
  utmCampaign: string | null;
  device: string;
  bot: boolean;
  test: boolean;
  productId: string | null;
  query: string | null;
  resultCount: number | null;
  amount: number | null;
  data: EventData | null;
}

interface Cell extends Figures {
  visitorIds: Set<string>;
}

/** Spec 01 §5.8: search terms lower-cased, whitespace normalised. */
export const searchTerm = (query: string) => query.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * One visitor's events, ordered by time, cut into sessions (spec 01 §5.8): a new one after 30 minutes idle
 * or on a page of a different campaign. The daily rows and the realtime report cut alike.
 */
export function cutSessions<E extends Pick<RawEvent, 'name' | 'at' | 'utmCampaign'>>(events: E[]): E[][] {
  const sessions: E[][] = [];
  let session: E[] = [];
  let campaign: string | null = null;
  for (const e of events) {
    const last = session.at(-1);
    const newCampaign = e.name === 'page' && e.utmCampaign !== null && e.utmCampaign !== campaign;
    if (last && (e.at - last.at >= IDLE_MS || newCampaign)) {
      sessions.push(session);
      session = [];
      campaign = null;
    }
    if (e.name === 'page' && e.utmCampaign !== null) campaign = e.utmCampaign;
    session.push(e);
  }
  if (session.length) sessions.push(session);
  return sessions;
}

/** Collects rows per date, dimension and key, for the dates in `dates` only. */
export class Accumulator {
  /** Cells by date, then dimension, then key: a million events add a million times, so no key is built per add. */
  private readonly cells = new Map<string, Map<Dimension, Map<string, Cell>>>();
  constructor(readonly dates: Set<string>) {}

  private cell(date: string, dimension: Dimension, key: string): Cell {
    let byDimension = this.cells.get(date);
    if (!byDimension) this.cells.set(date, (byDimension = new Map()));
    let byKey = byDimension.get(dimension);
    if (!byKey) byDimension.set(dimension, (byKey = new Map()));
    let cell = byKey.get(key);
    if (!cell) byKey.set(key, (cell = { ...zeroFigures(), visitorIds: new Set() }));
    return cell;
  }

  private add(date: string, dimension: Dimension, key: string, figures: Partial<Figures>, visitorId?: string) {
    const cell = this.cell(date, dimension, key);
    for (const f in figures) cell[f as Figure] += figures[f as Figure]!;
    if (visitorId) cell.visitorIds.add(visitorId);
  }

  /** One visitor's events, ordered by time: cut into sessions and counted. */
  visitor(events: RawEvent[]) {
    for (const session of cutSessions(events)) this.session(session);
  }

  private session(events: RawEvent[]) {
    const days = events.map((e) => seoulDateOf(e.at));
    const dates = new Set(days.filter((d) => this.dates.has(d)));
    if (dates.size === 0) return;
    if (events.some((e) => e.bot)) {
      for (const date of dates) this.add(date, 'day', '', { excludedBotSessions: 1 });
      return;
    }
    const visitorId = events[0].visitorId;
    const pages = events.filter((e) => e.name === 'page');
    const dwell = this.dwell(events);
    let dwellTotal = 0;
    for (const ms of dwell.values()) dwellTotal += ms;
    const engaged =
      pages.length >= 2 || dwellTotal >= ENGAGED_DWELL_MS || events.some((e) => e.name === 'cart_add' || e.name === 'checkout_start' || e.name === 'purchase');
    const firstPage = pages[0];
    const source = !firstPage ? 'UNKNOWN' : (firstPage.utmSource ?? firstPage.referrerHost ?? 'DIRECT');
    const device = events[0].device;
    const sessionFigures = { sessions: 1, engagedSessions: engaged ? 1 : 0 };

    for (const date of dates) {
      const own = events.filter((_, i) => days[i] === date);
      const figures = { ...sessionFigures, ...this.eventFigures(own, dwell) };
      for (const [dimension, key] of [
        ['day', ''],
        ['source', source],
        ['device', device],
      ] as const)
        this.add(date, dimension, key, figures, visitorId);
      this.pages(date, own, dwell, visitorId);
      this.products(date, own, visitorId);
      this.terms(date, own, visitorId);
      this.steps(date, own, visitorId);
    }
  }

  /**
   * Each page's dwell: until the session's next page (or the page being hidden), else its last event; at
   * most 30 minutes per page and, in all, the session's length plus 30 minutes.
   */
  private dwell(events: RawEvent[]): Map<RawEvent, number> {
    const last = events.at(-1)!.at;
    // When the page shown at each event ends: the next page or page_hide after it (found walking back once).
    const endsAt: number[] = Array.from({ length: events.length });
    let next = last;
    for (let i = events.length - 1; i >= 0; i--) {
      endsAt[i] = next;
      if (events[i].name === 'page' || events[i].name === 'page_hide') next = events[i].at;
    }
    const out = new Map<RawEvent, number>();
    let budget = last - events[0].at + PAGE_DWELL_CAP_MS;
    events.forEach((e, i) => {
      if (e.name !== 'page') return;
      const ms = Math.min(Math.max(0, endsAt[i] - e.at), PAGE_DWELL_CAP_MS, budget);
      budget -= ms;
      out.set(e, ms);
    });
    return out;
  }

  /** What the session's events of one date add up to (the session-level figures come separately). */
  private eventFigures(events: RawEvent[], dwell: Map<RawEvent, number>): Partial<Figures> {
    const f: Partial<Figures> = {
      pageViews: 0,
      productViews: 0,
      listViews: 0,
      cartAdds: 0,
      checkoutStarts: 0,
      searches: 0,
      zeroResultSearches: 0,
      purchases: 0,
      purchaseAmount: 0,
      testPurchases: 0,
      testPurchaseAmount: 0,
    };
    let dwellMs = 0;
    for (const e of events) {
      if (e.name === 'page') {
        f.pageViews!++;
        dwellMs += dwell.get(e) ?? 0;
      } else if (e.name === 'product_view') f.productViews!++;
      else if (e.name === 'product_list_view') f.listViews!++;
      else if (e.name === 'cart_add') f.cartAdds!++;
      else if (e.name === 'checkout_start') f.checkoutStarts!++;
      else if (e.name === 'search') {
        f.searches!++;
        if (e.resultCount === 0) f.zeroResultSearches!++;
      } else if (e.name === 'purchase') {
        if (e.test) {
          f.testPurchases!++;
          f.testPurchaseAmount! += e.amount ?? 0;
        } else {
          f.purchases!++;
          f.purchaseAmount! += e.amount ?? 0;
        }
      }
    }
    f.dwellSeconds = Math.floor(dwellMs / 1000);
    return f;
  }

  private pages(date: string, events: RawEvent[], dwell: Map<RawEvent, number>, visitorId: string) {
    const seen = new Set<string>();
    for (const e of events) {
      if (e.name !== 'page' || e.path === null) continue;
      this.add(date, 'path', e.path, { pageViews: 1, dwellSeconds: Math.floor((dwell.get(e) ?? 0) / 1000), sessions: seen.has(e.path) ? 0 : 1 }, visitorId);
      seen.add(e.path);
    }
  }

  private products(date: string, events: RawEvent[], visitorId: string) {
    const seen = new Set<string>();
    const touch = (productId: string, figures: Partial<Figures>) => {
      this.add(date, 'product', productId, { ...figures, sessions: seen.has(productId) ? 0 : 1 }, visitorId);
      seen.add(productId);
    };
    for (const e of events) {
      if (e.name === 'product_view' && e.productId) touch(e.productId, { productViews: 1 });
      else if (e.name === 'product_list_view') for (const id of new Set(e.data?.productIds ?? [])) touch(id, { listViews: 1 });
      else if (e.name === 'cart_add' && e.productId) touch(e.productId, { cartAdds: 1 });
      else if (e.name === 'purchase') {
        for (const item of e.data?.items ?? [])
          touch(item.productId, e.test ? { testPurchases: 1, testPurchaseAmount: item.amount } : { purchases: 1, purchaseAmount: item.amount });
      }
    }
  }

  /** Searches per term; a purchase later in the same session and date counts for every term searched before it. */
  private terms(date: string, events: RawEvent[], visitorId: string) {
    const searched = new Set<string>();
    for (const e of events) {
      if (e.name === 'search' && e.query !== null) {
        const term = searchTerm(e.query);
        if (!term) continue;
        this.add(date, 'term', term, { searches: 1, zeroResultSearches: e.resultCount === 0 ? 1 : 0, sessions: searched.has(term) ? 0 : 1 }, visitorId);
        searched.add(term);
      } else if (e.name === 'purchase') {
        for (const term of searched) {
          this.add(date, 'term', term, e.test ? { testPurchases: 1, testPurchaseAmount: e.amount ?? 0 } : { purchases: 1, purchaseAmount: e.amount ?? 0 });
        }
      }
    }
  }

  /** The funnel: sessions that did each step on the date, whatever steps they skipped. */
  private steps(date: string, events: RawEvent[], visitorId: string) {
    const did = (name: string) => events.some((e) => e.name === name);
    this.add(date, 'step', 'SESSION', { sessions: 1 }, visitorId);
    if (did('product_view')) this.add(date, 'step', 'PRODUCT_VIEW', { sessions: 1 }, visitorId);
    if (did('cart_add')) this.add(date, 'step', 'CART_ADD', { sessions: 1 }, visitorId);
    if (did('checkout_start')) this.add(date, 'step', 'CHECKOUT_START', { sessions: 1 }, visitorId);
    const purchases = events.filter((e) => e.name === 'purchase');
    // A session paying only with test payments shows in the funnel only with includeTest.
    if (purchases.some((e) => !e.test)) this.add(date, 'step', 'PURCHASE', { sessions: 1 }, visitorId);
    else if (purchases.length) this.add(date, 'step', 'PURCHASE', { testPurchases: 1 }, visitorId);
  }

  rows(storeId: string) {
    const rows: (Figures & { storeId: string; date: string; dimension: Dimension; key: string })[] = [];
    for (const [date, byDimension] of this.cells)
      for (const [dimension, byKey] of byDimension)
        for (const [key, { visitorIds, ...figures }] of byKey) rows.push({ storeId, date, dimension, key, ...figures, visitors: visitorIds.size });
    return rows;
  }
}
