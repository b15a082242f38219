import { getRouterParam, type H3, type H3Event } from 'h3';
import { seoulDateTimeOf } from '../../db/clock.js';
import { readBodyText } from '../../server/body.js';
import { devRoute } from '../../server/dev.js';
import { formToken, formTokenValid } from '../../server/form-token.js';
import { ApiError } from '../../server/errors.js';
import { escapeHtml, htmlResponse } from '../../server/html.js';
import type { Services } from '../../server/services.js';
import { parseWith } from '../../server/validation.js';
import { simulateOutcome, type Outcome } from './inputs.js';
import { holdSandboxRefunds, methodLabel, PG_NAMES, type EasyPayProvider, type PaymentMethod, type Pg } from '../payments/index.js';
import { decideSandbox, returnFromGateway, withResult } from './payment-confirmation.js';
import { attemptsOf, findPayment } from './payment-records.js';
import { presentPaymentStatus, storefrontResult } from './payment-views.js';
import { loadSheet } from './sheet.js';
import { KOREAN_FONT_FAMILY, KOREAN_FONT_LINK } from '../../server/fonts.js';

/** The window's form is three fields; nothing larger is read. */
const PAY_FORM_LIMIT = 4096;
const won = (n: number) => `${n.toLocaleString('ko-KR')}원`;

function page(title: string, body: string, status = 200) {
  return htmlResponse(
    `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
${KOREAN_FONT_LINK}
<style>body{font-family:${KOREAN_FONT_FAMILY};max-width:420px;margin:40px auto;padding:0 16px;color:#222}.box{border:1px solid #ddd;border-radius:12px;padding:20px}.amount{font-size:28px;font-weight:700;margin:8px 0 16px}
.badge{display:inline-block;background:#fff3cd;color:#7a5b00;border-radius:6px;padding:2px 8px;font-size:12px}button{font-family:inherit;width:100%;padding:12px;margin-top:8px;border-radius:8px;border:1px solid #ccc;font-size:16px;cursor:pointer}
button.approve{background:#1f6feb;color:#fff;border-color:#1f6feb}dl{display:grid;grid-template-columns:auto 1fr;gap:4px 12px;font-size:14px}dt{color:#666}</style></head><body>${body}</body></html>`,
    status,
  );
}

/** The sandbox payment window: what the gateway's window would show, with the buyer's three choices. */
async function windowPage(services: Services, paymentId: string) {
  const payment = await findPayment(services.db, paymentId);
  if (!payment) return page('결제를 찾을 수 없습니다', '<div class="box"><h1>결제를 찾을 수 없습니다</h1></div>', 404);
  // A prepared window: sandbox ones have their key; pg_one live ones get it only on return, but have SDK parameters.
  const open = (await attemptsOf(services.db, paymentId)).filter((a) => a.status === 'READY' && (a.pgPaymentKey || a.windowParams)).at(-1);
  const now = services.clock.now();
  if (!open || now >= payment.expiresAt) {
    const result = await storefrontResult(services, payment);
    return page('결제창', `<div class="box"><h1>열려 있는 결제창이 없습니다</h1><p>결제 상태: <b>${escapeHtml(result.status)}</b></p></div>`, 409);
  }
  const sheet = await loadSheet(services.db, payment.checkoutId);
  const name = sheet.items.length > 1 ? `${sheet.items[0].name} 외 ${sheet.items.length - 1}건` : sheet.items[0].name;
  if (!open.testPayment) return liveWindowPage(open.pg, name, payment.amounts.totalAmount, open.windowParams ?? {});
  const button = (outcome: Outcome, label: string, cls = '') => `<button type="submit" name="outcome" value="${outcome}" class="${cls}">${label}</button>`;
  return page(
    '결제',
    `<div class="box">
<span class="badge">${payment.testPayment ? '테스트 결제 · 실제 돈이 나가지 않습니다' : '결제'}</span>
<h1>${escapeHtml(PG_NAMES[open.pg as Pg])} 결제</h1>
<dl><dt>주문</dt><dd>${escapeHtml(name)}</dd><dt>주문 번호</dt><dd>${escapeHtml(open.pgOrderId)}</dd><dt>결제 수단</dt><dd data-method>${escapeHtml(methodLabel(open.method as PaymentMethod, open.provider as EasyPayProvider | null))}</dd><dt>유효 시간</dt><dd data-expires>${escapeHtml(seoulDateTimeOf(payment.expiresAt))}까지</dd></dl>
<div class="amount">${won(payment.amounts.totalAmount)}</div>
<form method="post"><input type="hidden" name="token" value="${formToken(services, 'pay-window', open.id)}">${button('APPROVE', '결제 승인', 'approve')}${button('REFUSE', '결제 거절 (카드사 거절)')}${button('CANCEL', '창 닫기')}</form>
</div>`,
  );
}

/**
 * A live window: the gateway's own browser SDK opens it with the public parameters the adapter gave; the
 * gateway then sends the buyer to `/pay/{paymentId}/return`, where the payment is confirmed.
 */
function liveWindowPage(pg: string, name: string, amount: number, params: Record<string, string>) {
  const sdk =
    pg === 'pg_one'
      ? {
          src: 'https://js.tosspayments.com/v2/standard',
          open: `const p = TossPayments(c.clientKey).payment({ customerKey: TossPayments.ANONYMOUS });
p.requestPayment({ method: c.method, amount: { currency: 'KRW', value: Number(c.amount) }, orderId: c.orderId, orderName: c.orderName, successUrl: c.successUrl, failUrl: c.failUrl, ...(c.easyPay ? { card: { flowMode: 'DIRECT', easyPay: c.easyPay } } : {}) });`,
        }
      : {
          src: 'https://cdn.portone.io/v2/browser-sdk.js',
          open: `PortOne.requestPayment({ storeId: c.storeId, channelKey: c.channelKey, paymentId: c.paymentId, orderName: c.orderName, totalAmount: Number(c.totalAmount), currency: 'CURRENCY_' + c.currency, payMethod: c.payMethod, redirectUrl: c.redirectUrl, ...(c.easyPayProvider ? { easyPay: { easyPayProvider: c.easyPayProvider } } : {}) });`,
        };
  // JSON inside <script>: "<" escaped so a value can never close the tag.
  const json = JSON.stringify(params).replace(/</g, '\\u003c');
  return page(
    '결제',
    `<div class="box"><h1>${escapeHtml(name)}</h1><div class="amount">${won(amount)}</div><p>결제창을 여는 중입니다…</p></div>
<script type="application/json" id="window">${json}</script><script src="${sdk.src}"></script>
<script>const c = JSON.parse(document.getElementById('window').textContent);\n${sdk.open}</script>`,
  );
}

const errorPage = (error: ApiError) =>
  page('결제', `<div class="box"><h1>${escapeHtml(error.message)}</h1><p><code>${escapeHtml(error.code)}</code></p></div>`, error.status);

/** `/pay/{paymentId}` (both modes) and, under `svc dev`, `POST /_dev/v1/payments/{paymentId}/simulate`. */
export function mountPayPages(app: H3, services: Services) {
  const paymentIdOf = (event: H3Event) => getRouterParam(event, 'paymentId', { decode: true }) ?? '';
  app.get('/pay/:paymentId', (event) => windowPage(services, paymentIdOf(event)));
  app.post('/pay/:paymentId', async (event) => {
    const paymentId = paymentIdOf(event);
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await readBodyText(event, PAY_FORM_LIMIT));
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return errorPage(error);
    }
    const outcome = form.get('outcome');
    if (outcome !== 'APPROVE' && outcome !== 'REFUSE' && outcome !== 'CANCEL')
      return page('잘못된 요청', '<div class="box"><h1>잘못된 요청입니다</h1></div>', 400);
    const [payment, attempts] = await Promise.all([findPayment(services.db, paymentId), attemptsOf(services.db, paymentId)]);
    const attempt = attempts.filter((a) => a.status === 'READY').at(-1);
    // The window's own form carries a token bound to its attempt: another site cannot approve in the buyer's name.
    if (!payment || !attempt || !formTokenValid(services, 'pay-window', attempt.id, form.get('token'))) {
      return page('잘못된 요청', '<div class="box"><h1>결제창이 바뀌었거나 만료되었습니다</h1><p>결제창을 다시 열어 주세요.</p></div>', 403);
    }
    let decided: Awaited<ReturnType<typeof decideSandbox>>;
    try {
      decided = await decideSandbox(services, paymentId, outcome, {}, { payment, attempts });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return errorPage(error);
    }
    // After the buyer's choice the window sends them back to the storefront's `returnUrl` with the result.
    return new Response(null, { status: 303, headers: { location: withResult(attempt.returnUrl, decided.storefrontResult) } });
  });
  app.get('/pay/:paymentId/return', async (event) => {
    try {
      return new Response(null, { status: 303, headers: { location: await returnFromGateway(services, paymentIdOf(event), event.url.searchParams) } });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return errorPage(error);
    }
  });
  if (services.config.mode !== 'dev') return;
  app.post(
    '/_dev/v1/payments/:paymentId/simulate',
    devRoute(services, async (raw, event) => {
      const { outcome, amount } = parseWith(simulateOutcome, raw);
      const paymentId = paymentIdOf(event);
      const payment = await findPayment(services.db, paymentId);
      if (!payment) throw new ApiError(404, 'PAYMENT_NOT_FOUND');
      if (outcome === 'REFUND_HELD') {
        await holdSandboxRefunds(services, paymentId);
        return presentPaymentStatus(services, payment);
      }
      return decideSandbox(services, paymentId, outcome, { amount }, { payment });
    }),
  );
}
