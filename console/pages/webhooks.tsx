/**
 * Webhooks: subscriptions, their deliveries with the signed request sent and the receiver's answer,
 * redelivery and secret rotation; and the store's live event tail.
 */
import { useEffect, useState } from 'react';
import { api, data, raw } from '../api.js';
import { subscribeEvents, type StoreEvent } from '../events.js';
import { kst, kstTime } from '../format.js';
import { useSession } from '../session.js';
import { ActionButton, Badge, ErrorBox, Loading, Page, useLoad } from '../ui.js';

const DELIVERY: Record<string, string> = { PENDING: '대기', PENDING_RETRY: '재시도 대기', SUCCESS: '성공', FAILED: '실패' };

/** A payload as sent (a JSON text), indented for reading. */
function pretty(payload: unknown): string {
  if (typeof payload !== 'string') return JSON.stringify(payload, null, 2);
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

function Delivery({ webhookId, deliveryId, onRedelivered }: { webhookId: string; deliveryId: string; onRedelivered: () => void }) {
  const { can } = useSession();
  const detail = useLoad(() => raw('GET', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}`), [deliveryId]);
  const d = detail.value;
  if (!d) return detail.error ? <ErrorBox error={detail.error} /> : <Loading />;
  return (
    <div className="delivery-detail" data-testid="delivery-detail">
      <h4>보낸 요청 (서명 포함)</h4>
      <pre className="code">
        {(d.requestHeaders ?? []).map((h: { name: string; value: string | null }) => `${h.name}: ${h.value ?? '(가려짐)'}`).join('\n')}
        {'\n\n'}
        {pretty(d.payload)}
        {d.payloadTruncated ? '\n… (잘림)' : ''}
      </pre>
      <h4>받는 쪽의 응답</h4>
      <pre className="code">
        {d.responseStatusCode ? `HTTP ${d.responseStatusCode} · ${d.responseTimeMs}ms` : (d.errorCode ?? '응답 없음')}
        {d.failureReason ? `\n${d.failureReason}` : ''}
        {d.responseBodyExcerpt ? `\n\n${d.responseBodyExcerpt}` : ''}
      </pre>
      {can('webhook:rw') ? (
        <ActionButton onRun={() => raw('POST', `/v1/webhooks/${webhookId}/deliveries/${deliveryId}/redeliver`, {}).then(onRedelivered)}>
          다시 보내기
        </ActionButton>
      ) : null}
      {d.redeliveredAs ? <p className="muted">다시 보낸 전송: {d.redeliveredAs}</p> : null}
    </div>
  );
}

function Subscription({ hook, onChanged }: { hook: any; onChanged: () => void }) {
  const { can } = useSession();
  const deliveries = useLoad(() => raw('GET', `/v1/webhooks/${hook.webhookId}/deliveries?limit=20`), [hook.webhookId]);
  const [open, setOpen] = useState<string | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <article className="card" data-webhook-id={hook.webhookId}>
      <h2>
        <code>{hook.url}</code> <Badge tone={hook.status === 'ACTIVE' ? 'good' : 'bad'}>{hook.status === 'ACTIVE' ? '사용 중' : '중지됨'}</Badge>
      </h2>
      <p className="muted">
        {hook.eventTypes.join(', ')} · 서명 키 {hook.secretPrefix}…{hook.oldSecretExpiresAt ? ` (이전 키 ${kst(hook.oldSecretExpiresAt)}까지 유효)` : ''}
      </p>
      {can('webhook:rw') ? (
        <p className="row">
          <ActionButton
            onRun={async () => {
              const rotated = await raw('POST', `/v1/webhooks/${hook.webhookId}/rotate-secret`, {});
              setSecret(rotated.secret ?? null);
              onChanged();
            }}
          >
            서명 키 교체
          </ActionButton>
          {hook.status === 'SUSPENDED' ? (
            <ActionButton onRun={() => raw('POST', `/v1/webhooks/${hook.webhookId}/resume`, {}).then(onChanged)}>재개</ActionButton>
          ) : null}
          <ActionButton onRun={() => raw('POST', `/v1/webhooks/${hook.webhookId}/test`, {}).then(deliveries.reload)}>테스트 전송</ActionButton>
        </p>
      ) : null}
      {secret ? (
        <p role="status">
          새 서명 키 (한 번만 보입니다): <code>{secret}</code>
        </p>
      ) : null}
      <h3>최근 전송</h3>
      <ErrorBox error={deliveries.error} />
      {!deliveries.value ? (
        <Loading />
      ) : deliveries.value.contents.length === 0 ? (
        <p className="muted">아직 전송이 없습니다.</p>
      ) : (
        <ul className="deliveries">
          {deliveries.value.contents.map((d: any) => (
            <li key={d.deliveryId} data-delivery-id={d.deliveryId}>
              <button type="button" className="link" aria-expanded={open === d.deliveryId} onClick={() => setOpen(open === d.deliveryId ? null : d.deliveryId)}>
                {d.eventType} · {kst(d.createdAt)} · <span data-testid="delivery-status">{DELIVERY[d.status] ?? d.status}</span>
                {d.responseStatusCode ? ` · HTTP ${d.responseStatusCode}` : ''}
                {d.redeliveryOf ? ' · 재전송' : ''}
              </button>
              {open === d.deliveryId ? <Delivery webhookId={hook.webhookId} deliveryId={d.deliveryId} onRedelivered={deliveries.reload} /> : null}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

function EventTail() {
  const [events, setEvents] = useState<StoreEvent[]>([]);
  useEffect(() => subscribeEvents((e) => setEvents((list) => [e, ...list].slice(0, 30))), []);
  return (
    <section>
      <h2>실시간 이벤트</h2>
      {events.length === 0 ? (
        <p className="muted">이벤트를 기다리는 중…</p>
      ) : (
        <ul className="plain" aria-live="polite">
          {events.map((e) => (
            <li key={e.id}>
              {kstTime(e.data?.createdAt ?? e.data?.occurredAt ?? new Date().toISOString())} <code>{e.type}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export default function Webhooks() {
  const { store } = useSession();
  const hooks = useLoad(() => data(api.GET('/v1/webhooks')), [store.storeId]);
  return (
    <Page title="웹훅">
      <ErrorBox error={hooks.error} />
      {!hooks.value ? (
        <Loading />
      ) : hooks.value.contents.length === 0 ? (
        <p className="muted">구독이 없습니다. svc webhooks create로 만드세요.</p>
      ) : (
        hooks.value.contents.map((hook) => <Subscription key={hook.webhookId} hook={hook} onChanged={hooks.reload} />)
      )}
      <EventTail />
    </Page>
  );
}
