import { BuyerApiError } from '../lib/api.js';
import { orderNumber } from '../lib/format.js';
import { html } from '../lib/html.js';
import type { PaymentResult, Sheet } from '../lib/types.js';
import { loadSheet } from './checkout.js';
import type { PageContext } from './context.js';
import { loadStore, notFound, page } from './layout.js';
import { amountsTable, sheetItems } from './summary.js';

/** Spec 02 §8: poll a PROCESSING payment every 2 seconds, up to 20 times. */
const POLL_SECONDS = 2;
const POLL_LIMIT = 20;

async function loadResult(ctx: PageContext, paymentId: string | null): Promise<PaymentResult | null> {
  if (!paymentId) return null;
  try {
    return (await ctx.api<PaymentResult>('GET', `/payments/${encodeURIComponent(paymentId)}/result`)).data;
  } catch (error) {
    if (error instanceof BuyerApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * The pay page's return address. The query it appends is only a hint: the result is read again from
 * the buyer API, so a hand-made address cannot show an order that was not paid.
 */
export async function completePage(ctx: PageContext) {
  const q = ctx.url.searchParams;
  const [store, result, loaded] = await Promise.all([loadStore(ctx), loadResult(ctx, q.get('paymentId')), loadSheet(ctx, q.get('checkoutId'))]);
  const sheet: Sheet | null = loaded === 'EXPIRED' ? null : loaded;
  const retry = sheet?.status === 'OPEN' ? html`<a class="button" href="${ctx.paths.checkout(sheet.checkoutId)}">다시 결제하기</a>` : html`<a class="button" href="${ctx.paths.cart}">장바구니로</a>`;

  // The sheet is read as this store's (X-Store-Id), so only it may say an order was made here: a payment
  // id from elsewhere cannot show another store's order. It also covers orders with nothing to pay.
  if (sheet?.status === 'COMPLETED' && sheet.orderId) {
    const { orderId } = sheet;
    return page(ctx, {
      title: '주문 완료',
      store,
      noindex: true,
      body: html`<section class="result done" data-order-complete="${orderId}">
<h1>주문이 완료되었습니다</h1>
<p>주문 번호 <b class="order-no" data-order-no>${sheet.orderNo ? orderNumber(sheet.orderNo) : ''}</b></p>
<p class="muted">주문해 주셔서 감사합니다. 주문 번호를 적어 두시면 문의할 때 편합니다.</p>
${sheetItems(ctx, sheet)}${amountsTable(sheet.amounts)}
<a class="button" href="${ctx.paths.home}">쇼핑 계속하기</a>
</section>`,
    });
  }
  if (!result || result.status === 'COMPLETED') return notFound(ctx, store);
  if (result.status === 'PROCESSING') {
    const tries = Number.parseInt(q.get('tries') ?? '0', 10) || 0;
    const again = ctx.paths.complete(q.get('checkoutId') ?? '', { paymentId: result.paymentId, tries: String(tries + 1) });
    return page(ctx, {
      title: '결제 확인 중',
      store,
      noindex: true,
      head: tries < POLL_LIMIT ? html`<meta http-equiv="refresh" content="${POLL_SECONDS};url=${again}">` : undefined,
      body: html`<section class="result pending"><h1>결제를 확인하고 있습니다</h1>
<p>${tries < POLL_LIMIT ? '잠시만 기다려 주세요. 확인되면 자동으로 바뀝니다.' : '확인이 늦어지고 있습니다. 잠시 후 이 페이지를 새로 고쳐 주세요. 결제가 두 번 되지는 않습니다.'}</p>
</section>`,
    });
  }
  const canceled = result.status === 'CANCELED';
  return page(ctx, {
    title: canceled ? '결제 취소' : '결제 실패',
    store,
    noindex: true,
    body: html`<section class="result failed"><h1>${canceled ? '결제를 취소했습니다' : '결제하지 못했습니다'}</h1>
${result.status === 'FAILED' ? html`<p>${result.message || '결제 중 문제가 생겼습니다.'} <small class="muted">(${result.code})</small></p>` : ''}
${result.status === 'FAILED' && result.optionUnavailable ? html`<p class="muted">이 결제 수단은 지금 쓸 수 없습니다. 다른 결제 수단을 골라 주세요.</p>` : ''}
${retry}</section>`,
  });
}
