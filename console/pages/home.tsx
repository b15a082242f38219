/** Home: today's orders and sales, whether checkout is open (and why not), and what needs the seller now. */
import { useEffect } from 'react';
import { Link } from 'wouter';
import { api, data } from '../api.js';
import { subscribeEvents } from '../events.js';
import { kstToday, won } from '../format.js';
import { useSession } from '../session.js';
import { Badge, ErrorBox, Loading, Page, useLoad } from '../ui.js';

const UNAVAILABLE: Record<string, string> = {
  PAYMENT_NOT_LIVE: '결제 수단이 실결제(LIVE)로 연결되지 않았습니다.',
  PAYMENT_NOT_CONFIGURED: '연결된 결제 수단이 없습니다.',
};

interface Warning {
  key: string;
  text: string;
  href: string;
}

export default function Home() {
  const { can, store } = useSession();
  const today = kstToday();
  const overview = useLoad(async () => {
    const warnings: Warning[] = [];
    const checks: Promise<void>[] = [];
    if (can('settlement:r'))
      checks.push(
        data(api.GET('/v1/payments', { params: { query: { status: ['FAILED'], from: today, to: today, includeTest: 'true', size: 100 } } })).then((p) => {
          if (p.totalElements) warnings.push({ key: 'payments', text: `오늘 결제 실패 ${p.totalElements}건`, href: '/orders' });
        }),
        data(api.GET('/v1/payments', { params: { query: { includeTest: 'true', size: 100 } } })).then((p) => {
          const held = p.contents.filter((payment) => payment.heldRefundAmount > 0);
          if (held.length)
            warnings.push({
              key: 'refunds',
              text: `보류된 환불 ${held.length}건 (${won(held.reduce((sum, x) => sum + x.heldRefundAmount, 0))})`,
              href: '/orders',
            });
        }),
      );
    if (can('webhook:r'))
      checks.push(
        data(api.GET('/v1/webhooks')).then((w) => {
          const suspended = w.contents.filter((hook) => hook.status === 'SUSPENDED');
          if (suspended.length) warnings.push({ key: 'webhooks', text: `중지된 웹훅 ${suspended.length}개`, href: '/webhooks' });
        }),
      );
    if (can(null, ['OWNER', 'ADMIN']))
      checks.push(
        data(api.GET('/v1/approval-requests', { params: { query: { status: 'PENDING' } } })).then((a) => {
          if (a.totalElements) warnings.push({ key: 'approvals', text: `대기 중인 승인 요청 ${a.totalElements}건`, href: '/approvals' });
        }),
      );
    // The warnings are asked for at the same time as the figures; one that fails only drops its line.
    const warned = Promise.all(checks.map((c) => c.catch(() => undefined)));
    const [detail, orders, report] = await Promise.all([
      data(api.GET('/v1/store')),
      can('order:r') ? data(api.GET('/v1/orders', { params: { query: { orderedFrom: today, orderedTo: today, size: 100 } } })) : null,
      can('settlement:r') ? data(api.GET('/v1/sales-report', { params: { query: { from: today, to: today, includeTest: 'true' } } })).catch(() => null) : null,
    ]);
    await warned;
    return { detail, orders, report, warnings: warnings.sort((a, b) => a.key.localeCompare(b.key)) };
  }, [store.storeId, today]);

  const { reload } = overview;
  useEffect(() => (can('webhook:r') ? subscribeEvents((e) => e.type.startsWith('ORDER.') && reload()) : undefined), [can, reload]);

  const value = overview.value;
  return (
    <Page title={`${store.name} 홈`}>
      <ErrorBox error={overview.error} />
      {!value ? (
        <Loading />
      ) : (
        <>
          <div className="cards">
            <div className="card" data-testid="today-orders">
              <h2>오늘 주문</h2>
              <p className="figure">{value.orders ? `${value.orders.totalElements}건` : '—'}</p>
              <p className="muted">{value.orders ? won(value.orders.contents.reduce((sum, o) => sum + o.amounts.totalAmount, 0)) : '권한 없음'}</p>
            </div>
            <div className="card" data-testid="today-sales">
              <h2>오늘 매출</h2>
              <p className="figure">{value.report ? won(value.report.summary.paymentAmount) : '—'}</p>
              <p className="muted">
                {value.report ? `환불 ${won(value.report.summary.refundAmount)} · 순매출 ${won(value.report.summary.netAmount)}` : '권한 없음'}
              </p>
            </div>
            <div className="card" data-testid="checkout">
              <h2>결제 가능 여부</h2>
              <p className="figure">
                {value.detail.checkoutAvailable ? <Badge tone="good">결제 가능</Badge> : <Badge tone="bad">결제 불가</Badge>}{' '}
                {value.detail.checkoutMode === 'TEST' ? <Badge tone="warn">테스트 결제</Badge> : null}
              </p>
              {value.detail.checkoutUnavailableReason ? (
                <p className="muted">
                  {UNAVAILABLE[value.detail.checkoutUnavailableReason] ?? '결제를 받을 수 없습니다.'} <code>{value.detail.checkoutUnavailableReason}</code>
                </p>
              ) : (
                <p className="muted">구매자가 결제할 수 있습니다.</p>
              )}
            </div>
          </div>
          <h2>확인할 일</h2>
          {value.warnings.length === 0 ? (
            <p className="muted" data-testid="no-warnings">
              지금 확인할 일이 없습니다.
            </p>
          ) : (
            <ul className="warnings">
              {value.warnings.map((w) => (
                <li key={w.key}>
                  <Link href={w.href}>{w.text}</Link>
                </li>
              ))}
            </ul>
          )}
          {value.orders && value.orders.contents.length > 0 ? (
            <>
              <h2>오늘 들어온 주문</h2>
              <ul className="plain">
                {value.orders.contents.slice(0, 5).map((o) => (
                  <li key={o.orderId}>
                    <Link href={`/orders/${o.orderId}`}>
                      {o.orderNo} · {o.items.map((i) => i.productName).join(', ')} · {won(o.amounts.totalAmount)}
                    </Link>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
    </Page>
  );
}
