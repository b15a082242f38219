import { BuyerApiError, newKey, type FieldError } from '../lib/api.js';
import { afterPaymentStart, AGREEMENTS, GUEST_FIELDS, missingAgreements, paymentRequest, PRIVACY_NOTICE, SHIPPING_FIELDS } from '../lib/checkout.js';
import { html } from '../lib/html.js';
import type { PaymentStart, Sheet, Store } from '../lib/types.js';
import type { PageContext } from './context.js';
import { checkoutUnavailableMessage, loadStore, notFound, page, redirect } from './layout.js';
import { amountsTable, sheetItems } from './summary.js';

interface FormState {
  form?: URLSearchParams;
  fieldErrors?: FieldError[];
  message?: string;
  status?: number;
}

type Field = (typeof GUEST_FIELDS)[number] | (typeof SHIPPING_FIELDS)[number];

function input(field: Field, state: FormState) {
  const error = state.fieldErrors?.find((e) => e.field === field.name);
  // Passwords are never sent back into the page.
  const value = field.type === 'password' ? '' : state.form?.get(field.name) ?? '';
  return html`<label class="field${error ? ' invalid' : ''}"><span>${field.label}${field.required ? '' : html` <small>(선택)</small>`}</span>
<input name="${field.name}" type="${field.type}" autocomplete="${field.autocomplete}" value="${value}"${'placeholder' in field ? html` placeholder="${field.placeholder}"` : ''}${field.required ? html` required` : ''}${field.type === 'tel' ? html` inputmode="numeric"` : ''}>
<small class="field-error" data-error-for="${field.name}">${error?.message ?? ''}</small></label>`;
}

/** Every agreement is a required checkbox; the guest's privacy consent shows what is collected, why and for how long. */
function agreements(state: FormState) {
  const box = (a: (typeof AGREEMENTS)[number]) => {
    const error = state.fieldErrors?.find((e) => e.field === a.name);
    // Like passwords, consent is never carried over: a form shown again asks for it again.
    return html`<label class="agreement${error ? ' invalid' : ''}"><input type="checkbox" name="${a.name}" required> <span>[필수] ${a.label}</span></label>
<small class="field-error" data-error-for="${a.name}">${error?.message ?? ''}</small>`;
  };
  return html`<fieldset class="agreements"><legend>약관 동의</legend>
${box(AGREEMENTS[0])}${box(AGREEMENTS[1])}
<details class="privacy"><summary>개인정보 수집·이용 내용 보기</summary><table>${PRIVACY_NOTICE.map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`)}</table>
<p class="muted">동의하지 않으실 수 있으나, 그러면 비회원 주문을 할 수 없습니다.</p></details></fieldset>`;
}

/** The sheet, `'EXPIRED'` past its 30 minutes, or null when there is none. */
export async function loadSheet(ctx: PageContext, checkoutId: string | null): Promise<Sheet | 'EXPIRED' | null> {
  if (!checkoutId) return null;
  try {
    return (await ctx.api<Sheet>('GET', `/checkout/${encodeURIComponent(checkoutId)}`)).data;
  } catch (error) {
    if (error instanceof BuyerApiError && error.status === 404) return null;
    if (error instanceof BuyerApiError && error.code === 'CHECKOUT_EXPIRED') return 'EXPIRED';
    throw error;
  }
}

const expiredPage = (ctx: PageContext, store: Store | null) =>
  page(ctx, {
    title: '주문서가 만료되었습니다',
    store,
    status: 409,
    noindex: true,
    body: html`<section class="empty"><h1>주문서가 만료되었습니다</h1><p>주문서는 30분 동안 유효합니다. 장바구니에서 다시 주문해 주세요.</p><a class="button" href="${ctx.paths.cart}">장바구니로</a></section>`,
  });

function render(ctx: PageContext, sheet: Sheet, store: Store | null, state: FormState = {}) {
  const otherErrors = (state.fieldErrors ?? []).filter((e) => ![...GUEST_FIELDS, ...SHIPPING_FIELDS, ...AGREEMENTS].some((f) => f.name === e.field));
  const chosenOption = state.form?.get('option') ?? sheet.paymentOptions[0]?.key;
  return page(ctx, {
    title: '주문서',
    store,
    status: state.status,
    noindex: true,
    body: html`<h1 class="title">주문서</h1>
${sheet.testPayment ? html`<p class="notice">테스트 결제입니다. 실제로 돈이 나가지 않습니다.</p>` : ''}
<div class="checkout">
<section class="summary">${sheetItems(ctx, sheet)}${amountsTable(sheet.amounts, { live: sheet.requiresShipping })}</section>
<form class="checkout-form" method="post" action="${ctx.paths.checkout()}" data-checkout-form data-requires-shipping="${String(sheet.requiresShipping)}" data-payment-required="${String(sheet.paymentRequired)}" novalidate>
  <input type="hidden" name="checkoutId" value="${sheet.checkoutId}">
  <input type="hidden" name="idempotencyKey" value="${newKey()}">
  ${state.message || otherErrors.length ? html`<p class="error" role="alert" data-form-error>${[state.message, ...otherErrors.map((e) => e.message)].filter(Boolean).join(' ')}</p>` : html`<p class="error" role="alert" data-form-error hidden></p>`}
  <fieldset><legend>주문하는 분</legend>${GUEST_FIELDS.map((f) => input(f, state))}</fieldset>
  ${sheet.requiresShipping
    ? html`<fieldset><legend>배송지</legend>
<button type="button" class="button secondary address-search" data-address-search hidden>주소 검색</button>
${SHIPPING_FIELDS.map((f) => input(f, state))}</fieldset>`
    : ''}
  ${sheet.paymentRequired
    ? html`<fieldset class="options"><legend>결제 수단</legend>${sheet.paymentOptions.length
      ? sheet.paymentOptions.map((o) => html`<label class="option"><input type="radio" name="option" value="${o.key}"${o.key === chosenOption ? html` checked` : ''} required> ${o.label} <small class="muted">${o.pgName}</small></label>`)
      : html`<p class="error">지금은 결제할 수 있는 수단이 없습니다.</p>`}</fieldset>`
    : ''}
  ${agreements(state)}
  ${store && !store.checkoutAvailable && sheet.paymentRequired
    ? html`<p class="error" data-checkout-unavailable>${checkoutUnavailableMessage(store)}</p>`
    : html`<button type="submit" class="button wide"${sheet.paymentRequired && !sheet.paymentOptions.length ? html` disabled` : ''}>${sheet.paymentRequired ? '결제하기' : '주문하기'}</button>`}
</form>
</div>`,
  });
}

export async function checkoutPage(ctx: PageContext) {
  const checkoutId = ctx.url.searchParams.get('id');
  const [store, sheet] = await Promise.all([loadStore(ctx), loadSheet(ctx, checkoutId)]);
  if (!sheet) return notFound(ctx, store);
  if (sheet === 'EXPIRED' || sheet.status === 'EXPIRED') return expiredPage(ctx, store);
  if (sheet.status === 'COMPLETED') return redirect(ctx.paths.complete(sheet.checkoutId));
  return render(ctx, sheet, store);
}

/**
 * The checkout form without the browser script: start the payment here and send the buyer to the pay
 * page; its return address is the order-complete page. The form's idempotency key makes a resubmission
 * answer the first start instead of opening a second payment; the API remembers refusals under the key
 * too, so a form shown again after one carries a new key.
 */
export async function checkoutFormPost(ctx: PageContext) {
  const form = new URLSearchParams(await ctx.request.text());
  const checkoutId = form.get('checkoutId');
  const [store, sheet] = await Promise.all([loadStore(ctx), loadSheet(ctx, checkoutId)]);
  if (!sheet) return notFound(ctx, store);
  if (sheet === 'EXPIRED' || sheet.status === 'EXPIRED') return expiredPage(ctx, store);
  if (sheet.status === 'COMPLETED') return redirect(ctx.paths.complete(sheet.checkoutId));
  const unagreed = missingAgreements(form);
  if (unagreed.length) return render(ctx, sheet, store, { form, status: 400, fieldErrors: unagreed });
  try {
    const { data: start } = await ctx.api<PaymentStart>('POST', `/checkout/${encodeURIComponent(sheet.checkoutId)}/payment`, {
      body: paymentRequest(form, sheet, ctx.paths.complete(sheet.checkoutId)),
      idempotencyKey: form.get('idempotencyKey') ?? undefined,
    });
    return redirect(afterPaymentStart(ctx.paths, sheet.checkoutId, start));
  } catch (error) {
    if (!(error instanceof BuyerApiError) || error.status >= 500) throw error;
    return render(ctx, sheet, store, { form, status: error.status, fieldErrors: error.fieldErrors, message: error.fieldErrors.length ? undefined : error.message });
  }
}
