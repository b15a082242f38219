/**
 * Sending requests made from the OpenAPI document (test/helpers/openapi-fuzz.ts) to a test service, and
 * the store they act in: real ids of its resources, so generated requests reach past the 404s.
 */
import { buy, connectSandbox, createProduct, ok } from './checkout.js';
import { urlOf, type FuzzRequest, type KnownValues } from './openapi-fuzz.js';
import type { TestService } from './service.js';

/** Real ids of the store's resources: a product, a category, a checkout, a payment, an order, a site and a custom domain. */
export async function knownValues(svc: TestService): Promise<KnownValues> {
  await connectSandbox(svc.api);
  const { productId, optionId } = await createProduct(svc.api, {});
  const category = ok(await svc.api('POST', '/v1/categories', { body: { name: '퍼징' } }), 201);
  const { sheet, start } = await buy(svc, svc.storeId, { productId, optionId });
  const order = ok(await svc.api('GET', '/v1/orders')).contents[0];
  // A storefront site and a custom domain, so the storefront operations reach past STOREFRONT_SITE_NOT_FOUND.
  ok(await svc.api('POST', '/v1/storefront/site', { body: { templateId: 'basic' } }), 201);
  const domain = ok(await svc.api('POST', '/v1/storefront/site/domains', { body: { hostname: 'fuzz.example.test' } }), 201);
  return {
    domainId: [domain.domainId, 'dom_platform'],
    productId: [productId],
    variantId: [optionId],
    categoryId: [category.categoryId],
    checkoutId: [sheet.checkoutId],
    paymentId: [start.paymentId],
    orderId: [order.orderId],
    provider: ['pg_one', 'pg_two'],
    environment: ['TEST', 'LIVE'],
  };
}

export interface SentRequest {
  /** Null when no answer came (connection reset, timeout). */
  status: number | null;
  text: string;
  url: string;
  sent: string;
}

/** Sends a request as the holder of `token` in `storeId` (the token only when `req.token`). */
export async function sendRequest(base: string, req: FuzzRequest, auth: { token: string; storeId: string }, timeoutMs = 10_000): Promise<SentRequest> {
  const url = urlOf(base, req);
  // One connection per request: no request can leave a kept-alive socket in a state that fails the next.
  const headers: Record<string, string> = { connection: 'close' };
  if (req.token) headers.authorization = `Bearer ${auth.token}`;
  if (req.op.headers.some((h) => h.name.toLowerCase() === 'x-store-id') || req.op.path.startsWith('/storefront/')) headers['x-store-id'] = auth.storeId;
  let body: BodyInit | undefined;
  let sent = '';
  if (req.body && req.op.method !== 'GET') {
    if ('json' in req.body) {
      sent = JSON.stringify(req.body.json) ?? '';
      headers['content-type'] = 'application/json';
      body = sent;
    } else if ('text' in req.body) {
      sent = req.body.text;
      headers['content-type'] = req.body.type;
      body = sent;
    } else {
      const form = new FormData();
      for (const [k, v] of Object.entries(req.body.form)) {
        if (typeof v === 'string') form.append(k, v);
        else form.append(k, new Blob([v instanceof Uint8Array ? new Uint8Array(v) : JSON.stringify(v)], { type: 'image/png' }), 'fuzz.png');
      }
      sent = `multipart ${JSON.stringify(req.body.form)}`;
      body = form;
    }
  }
  try {
    const res = await fetch(url, { method: req.op.method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    // A stream (server-sent events) answers its status up front and never ends: the status is the answer.
    if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
      await res.body?.cancel();
      return { status: res.status, text: '(event stream)', url, sent };
    }
    return { status: res.status, text: await res.text(), url, sent };
  } catch (error) {
    return { status: null, text: `${error}${(error as Error).cause ? ` (${(error as Error).cause})` : ''}`, url, sent };
  }
}

export const excerpt = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);
