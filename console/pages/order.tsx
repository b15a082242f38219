/**
 * One order: its items, each with its flow state on the flow's graph and the actions the flow offers now as
 * buttons (with their inputs), then its payment (refunds, cash receipt) and claims.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link } from 'wouter';
import { api, data, idempotencyKey, raw } from '../api.js';
import { subscribeEvents } from '../events.js';
import type { FlowDefinition } from '../flow-graph.js';
import { kst, won } from '../format.js';
import { useSession } from '../session.js';
import { ActionButton, Badge, ErrorBox, Loading, Page, useLoad } from '../ui.js';
import { STATUS_LABEL } from './orders.js';

const FlowGraph = lazy(() => import('../flow-graph.js'));

interface ActionInput {
  key: string;
  kind: string;
  label: string;
  placeholder?: string;
  required?: boolean;
  options?: { value: string; label: string }[];
}
interface FlowAction {
  key: string;
  label: string;
  actor: string;
  enabled: boolean;
  disabled: { reason?: string; message?: string } | null;
  inputs?: ActionInput[];
}

function ActionForm({ itemId, action, onDone }: { itemId: string; action: FlowAction; onDone: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const inputs = action.inputs ?? [];
  return (
    <div className="action-form" data-action={action.key}>
      {inputs.map((input) => (
        <label key={input.key}>
          {input.label}
          {input.required ? ' (필수)' : ''}
          {input.kind === 'textarea' ? (
            <textarea value={values[input.key] ?? ''} placeholder={input.placeholder} onChange={(e) => setValues({ ...values, [input.key]: e.target.value })} />
          ) : input.kind === 'select' && input.options ? (
            <select value={values[input.key] ?? ''} onChange={(e) => setValues({ ...values, [input.key]: e.target.value })}>
              <option value="">선택</option>
              {input.options.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          ) : (
            <input
              type={input.kind === 'date' ? 'date' : 'text'}
              value={values[input.key] ?? ''}
              placeholder={input.placeholder}
              onChange={(e) => setValues({ ...values, [input.key]: e.target.value })}
            />
          )}
        </label>
      ))}
      <ActionButton
        tone="primary"
        disabled={!action.enabled}
        onRun={async () => {
          const input = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ''));
          await raw('POST', `/v1/order-items/${itemId}/actions/${encodeURIComponent(action.key)}`, { input }, { 'idempotency-key': idempotencyKey() });
          onDone();
        }}
      >
        {action.label}
      </ActionButton>
      {action.disabled?.message ? <span className="muted">{action.disabled.message}</span> : null}
    </div>
  );
}

function ItemFlow({ item, onChanged }: { item: any; onChanged: () => void }) {
  const { can } = useSession();
  const flow = useLoad(async () => {
    const state = await raw(`GET`, `/v1/order-items/${item.orderItemId}/flow`);
    const version = await raw(`GET`, `/v1/commerce-flows/${state.flowId}/versions/${state.version}`);
    return { state, definition: version.definition as FlowDefinition };
  }, [item.orderItemId, item.status, item.flow?.state]);
  if (flow.error) return <ErrorBox error={flow.error} />;
  if (!flow.value) return <Loading />;
  const { state, definition } = flow.value;
  const sellerActions = (state.actions as FlowAction[]).filter((a) => a.actor === 'SELLER' || a.actor === 'ANY');
  return (
    <div className="item-flow">
      <p>
        흐름 상태: <strong data-testid="flow-state">{state.label}</strong> <Badge>{state.coreStatus}</Badge>
      </p>
      <Suspense fallback={<Loading />}>
        <FlowGraph definition={definition} current={state.state} label={`${item.productName}의 주문 흐름`} />
      </Suspense>
      {can('flow:rw') ? (
        sellerActions.length ? (
          <div className="actions">
            <h4>지금 할 수 있는 처리</h4>
            {sellerActions.map((a) => (
              <ActionForm key={a.key} itemId={item.orderItemId} action={a} onDone={onChanged} />
            ))}
          </div>
        ) : (
          <p className="muted">판매자가 지금 할 처리가 없습니다.</p>
        )
      ) : null}
      {state.timers?.length ? (
        <p className="muted">예약된 타이머: {state.timers.map((t: any) => `${t.to ?? ''} ${kst(t.dueAt ?? t.fireAt)}`).join(', ')}</p>
      ) : null}
    </div>
  );
}

export default function Order({ params }: { params: { orderId: string } }) {
  const { can } = useSession();
  const order = useLoad(() => data(api.GET('/v1/orders/{orderId}', { params: { path: { orderId: params.orderId } } })), [params.orderId]);
  const { reload } = order;
  const payment = useLoad(
    async () => (order.value?.payment?.paymentId && can('settlement:r') ? raw('GET', `/v1/payments/${order.value.payment.paymentId}`) : null),
    [order.value?.payment?.paymentId],
  );
  const claims = useLoad(async () => (can('order:r') ? raw('GET', `/v1/claims?orderId=${params.orderId}`) : null), [params.orderId, order.value]);
  useEffect(
    () =>
      can('webhook:r') ? subscribeEvents((e) => (e.data?.orderId === params.orderId || e.data?.order?.orderId === params.orderId) && reload()) : undefined,
    [can, reload, params.orderId],
  );
  const o = order.value as any;
  return (
    <Page title={o ? `주문 ${o.orderNo}` : '주문'} actions={<Link href="/orders">← 주문 목록</Link>}>
      <ErrorBox error={order.error} />
      {!o ? (
        <Loading />
      ) : (
        <>
          <dl className="facts">
            <dt>주문일시</dt>
            <dd>{kst(o.orderedAt)}</dd>
            <dt>상태</dt>
            <dd data-testid="order-status">{STATUS_LABEL[o.progressStatus] ?? o.progressStatus}</dd>
            <dt>구매자</dt>
            <dd>
              {o.buyer.name} {o.buyer.guest ? '(비회원)' : ''}
            </dd>
            <dt>결제 금액</dt>
            <dd>{won(o.amounts.totalAmount)}</dd>
            {o.shippingAddress ? (
              <>
                <dt>배송지</dt>
                <dd>
                  {o.shippingAddress.receiverName} · {o.shippingAddress.address1} {o.shippingAddress.address2}
                </dd>
              </>
            ) : null}
          </dl>
          <h2>주문 상품</h2>
          {o.items.map((item: any) => (
            <article key={item.orderItemId} className="item" data-item-id={item.orderItemId}>
              <h3>
                {item.productName} {item.optionValues?.length ? `(${item.optionValues.join(' / ')})` : ''} × {item.quantity}
              </h3>
              <p className="muted">
                {won(item.amount)}
                {item.optionSelections?.length
                  ? ` · 추가 옵션: ${item.optionSelections.map((s: any) => `${s.name ?? ''} ${s.value ?? s.valueName ?? ''}`).join(', ')}`
                  : ''}
              </p>
              {can('flow:r') ? <ItemFlow item={item} onChanged={reload} /> : null}
            </article>
          ))}
          <h2>결제</h2>
          {payment.value ? (
            <div className="table-wrap">
              <table>
                <caption className="visually-hidden">결제와 환불</caption>
                <tbody>
                  <tr>
                    <th scope="row">결제</th>
                    <td>
                      {payment.value.provider} {payment.value.method} · {won(payment.value.amount)} · {payment.value.status}
                    </td>
                  </tr>
                  <tr>
                    <th scope="row">환불</th>
                    <td>
                      {(payment.value.refunds ?? []).length === 0 ? '없음' : payment.value.refunds.map((r: any) => `${won(r.amount)} ${r.status}`).join(', ')}
                      {payment.value.heldRefundAmount ? ` · 보류 ${won(payment.value.heldRefundAmount)}` : ''}
                    </td>
                  </tr>
                  <tr>
                    <th scope="row">현금영수증</th>
                    <td>{o.payment?.cashReceipt ? `${o.payment.cashReceipt.status ?? ''} ${o.payment.cashReceipt.type ?? ''}` : '없음'}</td>
                  </tr>
                </tbody>
              </table>
            </div>
          ) : (
            <p className="muted">{can('settlement:r') ? '결제 정보를 불러오는 중…' : '결제 정보를 볼 권한이 없습니다.'}</p>
          )}
          <h2>클레임</h2>
          {claims.value?.contents?.length ? (
            <ul className="plain">
              {claims.value.contents.map((c: any) => (
                <li key={c.claimId}>
                  {c.claimType} · {c.status} · {kst(c.createdAt)}
                  {c.status === 'REQUESTED' && can('order:rw') ? (
                    <>
                      {' '}
                      <ActionButton onRun={() => raw('POST', `/v1/claims/${c.claimId}/approve`, {}).then(reload)}>승인</ActionButton>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">클레임이 없습니다.</p>
          )}
        </>
      )}
    </Page>
  );
}
