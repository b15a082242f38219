import { Flags } from '@oclif/core';
import { randomBytes } from 'node:crypto';
import { won } from '../../cli/format.js';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { ApiCallError } from '../../client/api-client.js';
import { printOrder } from '../orders/get.js';

/** Test keys `checkout try` connects pg_one with when the store has no provider in use (sandbox: no money moves). */
const SANDBOX_PG_ONE = { environment: 'TEST', clientKey: 'test_ck_svcCheckoutTry00000000001', secretKey: 'test_sk_svcCheckoutTry00000000001' };
const RETURN_URL = 'http://localhost/svc-checkout-try';

export default class CheckoutTry extends ApiCommand<typeof CheckoutTry> {
  static override summary = 'Walk a full sandbox purchase as a guest buyer (sheet → payment → simulated approval → order) and print the order';
  static override description = [
    'Uses the buyer API like a storefront would, then approves the payment in the sandbox gateway (svc dev only: POST /_dev/v1/payments/{id}/simulate).',
    'When the store has no payment provider in use, pg_one is connected in sandbox mode with test keys first (store-platform OWNER login needed), and that is said.',
    'Without --product the first product on sale with stock is bought.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> checkout try',
    '<%= config.bin %> checkout try --product prd_… --quantity 2',
    '<%= config.bin %> checkout try --product prd_… --option pg_one:EASY_PAY:EASYPAY_1 --json',
  ];
  static override flags = {
    product: Flags.string({ description: 'Product id to buy (default: the first product on sale with stock)' }),
    variant: Flags.string({ description: 'Variant (option) id (default: the first on sale)' }),
    quantity: Flags.integer({ description: 'Quantity', default: 1, min: 1, max: 999 }),
    option: Flags.string({ description: 'Payment option key, e.g. pg_one:CARD (default: the first offered)' }),
    'check-in': Flags.string({ description: 'Dated products: check-in date YYYY-MM-DD (default: tomorrow, one night)' }),
  };

  /** A buyer-API call as a guest storefront makes it: no account token, the store in X-Store-Id. */
  private async buyer<D = any>(method: string, path: string, storeId: string, body?: unknown): Promise<D> {
    try {
      return (
        await this.client.request<D>(method, path, {
          storeId,
          body,
          anonymous: true,
          idempotencyKey: method === 'POST' ? randomBytes(12).toString('hex') : undefined,
        })
      ).data;
    } catch (error) {
      if (error instanceof ApiCallError && error.body.code === 'GUEST_CHECKOUT_DISABLED') {
        throw new ApiCallError(error.status, {
          ...error.body,
          message: `${error.body.message} checkout try buys as a guest, and this store sells to signed-in buyers only: allow guests with svc api PATCH /store --data '{"guestCheckout":true}' --store ${storeId}, or try another store.`,
        });
      }
      throw error;
    }
  }

  private say(line: string) {
    if (!this.flags.json) this.log(line);
  }

  async run() {
    const f = this.flags;
    const storeId = await this.storeId();

    const product = await this.pickProduct(storeId);
    const variant = f.variant ? product.variants.find((v: any) => v.variantId === f.variant) : product.variants.find((v: any) => !v.soldOut);
    if (!variant)
      throw new UsageError(
        f.variant ? `variant ${f.variant} is not on sale in ${product.productId}` : `no variant of ${product.productId} is on sale with stock`,
      );
    const store = await this.buyer('GET', '/storefront/v1/store', storeId);
    if (!store.checkoutAvailable) {
      if (store.checkoutUnavailableReason !== 'PAYMENT_NOT_CONFIGURED') {
        throw new UsageError(
          `checkout is unavailable in this store (${store.checkoutUnavailableReason}); checkout try only connects a sandbox provider when none is in use`,
        );
      }
      this.say('No payment provider in use: connecting pg_one in sandbox mode with test keys (no real money moves)…');
      await this.storeRequest('PUT', '/v1/store/payment-providers/pg_one', { body: SANDBOX_PG_ONE });
      await this.storeRequest('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: true, sandboxMode: true } });
    }

    const directItem: Record<string, unknown> = { productId: product.productId, optionId: variant.variantId, quantity: f.quantity };
    if (product.inventoryMode === 'DATED') {
      const checkIn = f['check-in'] ?? new Date(Date.now() + 9 * 3600_000 + 86_400_000).toISOString().slice(0, 10);
      const checkOut = new Date(Date.parse(`${checkIn}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      directItem.stay = { checkIn, checkOut };
    }

    const sheet = await this.buyer('POST', '/storefront/v1/checkout', storeId, { directItem });
    this.say(
      `Checkout sheet ${sheet.checkoutId}: ${product.name}${variant.optionValues.length ? ` [${variant.optionValues.join(' / ')}]` : ''} × ${f.quantity} = ${won(sheet.amounts.totalAmount)}`,
    );
    const option = f.option ?? sheet.paymentOptions[0]?.key;
    // The guest's order password: printed, so the buyer's side (claims, flow actions) can be tried too.
    const orderPassword = randomBytes(9).toString('base64url');
    const start = await this.buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, storeId, {
      ...(sheet.paymentRequired ? { option, returnUrl: RETURN_URL } : {}),
      guest: { name: '테스트 구매자', phone: '01000000000', email: 'buyer@example.com', orderPassword },
      ...(sheet.requiresShipping
        ? { shippingAddress: { receiverName: '테스트 수령인', phone: '01000000000', zipCode: '06236', address1: '서울특별시 강남구 테헤란로 1', address2: '' } }
        : {}),
    });
    let orderId: string | null = start.orderId;
    if (start.status !== 'completed') {
      this.say(`Payment ${start.paymentId} (${start.option.label} via ${start.option.pgName}); sandbox window ${start.payUrl}`);
      const approved = await this.buyer('POST', `/_dev/v1/payments/${start.paymentId}/simulate`, storeId, { outcome: 'APPROVE' });
      if (!approved.orderId) {
        throw new ApiCallError(409, {
          code: approved.lastFailure?.code ?? 'PAYMENT_FAILED',
          message: approved.lastFailure?.message ?? 'the approval did not make an order',
          details: { paymentId: start.paymentId },
          fieldErrors: [],
          docs: '',
          traceId: '',
        });
      }
      orderId = approved.orderId;
      this.say('Approved in the sandbox.');
    }
    const order = await this.storeRequest('GET', `/v1/orders/${orderId}`);
    this.output(order, () => {
      printOrder(this, order);
      this.log(`See it in: svc orders list   ·   svc payments get ${order.payment.paymentId}`);
      const first = order.items[0];
      this.log(
        `Move it:   svc orders ${first.fulfillmentSnapshot.type === 'SHIPPING' ? 'confirm' : 'fulfill'} ${first.orderItemId}   ·   svc orders flow ${first.orderItemId}`,
      );
      this.log(`Buyer:     guest order password ${orderPassword} (claims and buyer actions under /storefront/v1/guest/orders/${order.orderId}/…)`);
    });
  }

  /**
   * The buyer's view of the chosen product, or of the first product on sale that has stock — a shipped one
   * first, so the walk the docs take next (confirm → dispatch → deliver, a return) applies to it.
   */
  private async pickProduct(storeId: string): Promise<any> {
    if (this.flags.product) return this.buyer('GET', `/storefront/v1/products/${encodeURIComponent(this.flags.product)}`, storeId);
    const page = await this.storeRequest('GET', '/v1/products', { query: { status: 'ON_SALE', size: 100 } });
    const inStock = page.contents.filter((p: any) => p.inventoryMode === 'STANDARD' && p.stockQuantity >= this.flags.quantity);
    const candidate = inStock.find((p: any) => p.fulfillment?.type === 'SHIPPING') ?? inStock[0];
    if (!candidate) throw new UsageError('no product on sale with stock in this store: create one (svc products create) or pass --product');
    return this.buyer('GET', `/storefront/v1/products/${candidate.productId}`, storeId);
  }
}
