/** Orders: the list with its filters, live as orders come in (the event stream). */
import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api, data } from '../api.js';
import { subscribeEvents } from '../events.js';
import { kst, won } from '../format.js';
import { useSession } from '../session.js';
import { Badge, ErrorBox, Loading, Page, useLoad, Pager } from '../ui.js';

export const STATUS_LABEL: Record<string, string> = {
  PAID: '결제 완료',
  CONFIRMED: '주문 확인',
  DISPATCHED: '발송',
  DELIVERED: '배송 완료',
  FULFILLED: '제공 완료',
  PURCHASE_DECIDED: '구매 확정',
  CANCELED: '취소',
  PARTIALLY_CANCELED: '부분 취소',
};

export default function Orders() {
  const { can, store } = useSession();
  const [filters, setFilters] = useState({ keyword: '', orderedFrom: '', orderedTo: '', testPayment: '' });
  const [applied, setApplied] = useState(filters);
  const [page, setPage] = useState(1);
  const orders = useLoad(() => {
    const query: Record<string, string | number> = { page, size: 20 };
    for (const [k, v] of Object.entries(applied)) if (v) query[k] = v;
    return data(api.GET('/v1/orders', { params: { query: query as never } }));
  }, [store.storeId, applied, page]);
  const { reload } = orders;
  useEffect(() => (can('webhook:r') ? subscribeEvents((e) => e.type.startsWith('ORDER.') && reload()) : undefined), [can, reload]);
  const list = orders.value;
  return (
    <Page title="주문">
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setApplied(filters);
        }}
      >
        <label>
          검색어
          <input value={filters.keyword} onChange={(e) => setFilters({ ...filters, keyword: e.target.value })} placeholder="주문자, 상품명" />
        </label>
        <label>
          주문일 부터
          <input type="date" value={filters.orderedFrom} onChange={(e) => setFilters({ ...filters, orderedFrom: e.target.value })} />
        </label>
        <label>
          까지
          <input type="date" value={filters.orderedTo} onChange={(e) => setFilters({ ...filters, orderedTo: e.target.value })} />
        </label>
        <label>
          결제
          <select value={filters.testPayment} onChange={(e) => setFilters({ ...filters, testPayment: e.target.value })}>
            <option value="">전체</option>
            <option value="false">실결제</option>
            <option value="true">테스트 결제</option>
          </select>
        </label>
        <button type="submit">조회</button>
      </form>
      <ErrorBox error={orders.error} />
      {!list ? (
        <Loading />
      ) : list.contents.length === 0 ? (
        <p className="muted">
          {list.orderedFrom} ~ {list.orderedTo} 사이의 주문이 없습니다.
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">주문 목록</caption>
              <thead>
                <tr>
                  <th scope="col">주문번호</th>
                  <th scope="col">주문일시</th>
                  <th scope="col">구매자</th>
                  <th scope="col">상품</th>
                  <th scope="col">금액</th>
                  <th scope="col">상태</th>
                </tr>
              </thead>
              <tbody>
                {list.contents.map((o) => (
                  <tr key={o.orderId} data-order-id={o.orderId}>
                    <td>
                      <Link href={`/orders/${o.orderId}`}>{o.orderNo}</Link>
                    </td>
                    <td>{kst(o.orderedAt)}</td>
                    <td>{o.buyer.name}</td>
                    <td>{o.items.map((i) => i.productName).join(', ')}</td>
                    <td className="num">{won(o.amounts.totalAmount)}</td>
                    <td>
                      {STATUS_LABEL[o.progressStatus] ?? o.progressStatus} {o.testPayment ? <Badge tone="warn">테스트</Badge> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} list={list} unit="건" onPage={setPage} />
        </>
      )}
    </Page>
  );
}
