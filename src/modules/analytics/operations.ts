import { z } from 'zod';
import { defineOperation } from '../../server/registry.js';
import { dateInput } from '../../server/validation.js';
import { periodOf, queryBool } from '../orders/index.js';
import { eventsBody, ingestEvents } from './ingest.js';
import { analyticsReport, realtimeReport, REPORTS, reportViews, type ReportName } from './reports.js';

/** Spec 01 §8: analytics periods are at most 92 days, by default the last 30. */
const MAX_DAYS = 92;
const tag = 'Analytics';

const ingest = defineOperation({
  operationId: 'storefrontCollectEvents',
  method: 'POST',
  path: '/storefront/v1/events',
  summary: 'Visit events from the storefront collector (headers x-svc-visitor, x-svc-session); 204 even when over the limits',
  tag: 'Storefront analytics',
  auth: 'buyer',
  body: eventsBody,
  idempotent: false,
  status: 204,
  response: z.null(),
  errors: { 403: ['ORIGIN_NOT_ALLOWED'] },
  handler: async (ctx) => {
    await ingestEvents(ctx.services, ctx.buyer.storeId, ctx.event.req.headers, ctx.body, ctx.now);
    return new Response(null, { status: 204 });
  },
});

const SUMMARIES: Record<ReportName, string> = {
  overview: 'Visits by Korean date: sessions, engaged sessions, visitors, page views, dwell, product views, cart adds, checkouts, purchases',
  products: 'Per product: sessions, views, click-through rate from lists, cart adds, purchases and item amounts',
  sources: 'Per source (utm_source, else referrer host): sessions and what they led to',
  devices: 'Per device (MOBILE, TABLET, DESKTOP): sessions and what they led to',
  pages: 'Per page path: views, sessions, visitors, dwell',
  search: 'Per search term (lower-cased, whitespace-normalised): searches, zero-result searches, purchases after searching',
  checkout: 'The checkout funnel (sessions per step, earlier steps not required) and payment results per payment request',
  realtime: 'The last 5 minutes from raw events, without waiting for aggregation',
};

const reportQuery = z.object({ from: dateInput.optional(), to: dateInput.optional(), includeTest: queryBool.default(false) }).strict();

const reports = REPORTS.map((name) =>
  defineOperation({
    operationId: `getAnalytics${name[0].toUpperCase()}${name.slice(1)}`,
    method: 'GET',
    path: `/v1/analytics/${name}`,
    summary: name === 'realtime' ? SUMMARIES[name] : `${SUMMARIES[name]} (period inclusive, default the last 30 days, at most 92)`,
    tag,
    auth: 'store',
    scope: 'analytics:r',
    agent: 'direct',
    query: name === 'realtime' ? z.object({ includeTest: queryBool.default(false) }).strict() : reportQuery,
    response: reportViews[name],
    errors: name === 'realtime' ? {} : { 400: ['INVALID_PARAMETER', 'RANGE_TOO_WIDE'] },
    handler: (ctx) => {
      const query = ctx.query as z.output<typeof reportQuery>;
      if (name === 'realtime') return realtimeReport(ctx.db, ctx.store.id, query.includeTest, ctx.now);
      const { from, to } = periodOf(query.from, query.to, ctx.now, MAX_DAYS);
      return analyticsReport(ctx.db, ctx.store.id, name, { from, to, includeTest: query.includeTest }, ctx.now);
    },
  }),
);

export const analyticsOperations = [ingest, ...reports];
