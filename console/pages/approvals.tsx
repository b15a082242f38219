/**
 * Approvals: AI agents' requests held for a person (spec 01 §5.6). The person signed in here is the approver:
 * approve or reject each. Changes the request would make are shown as a before → after diff when the
 * request carries them.
 */
import { useState } from 'react';
import { api, data, raw } from '../api.js';
import { kst } from '../format.js';
import { useSession } from '../session.js';
import { ActionButton, Badge, ErrorBox, Loading, Page, useLoad } from '../ui.js';

const STATUS: Record<string, string> = {
  PENDING: '대기',
  EXECUTING: '실행 중',
  SUCCEEDED: '완료',
  FAILED: '실패',
  UNKNOWN: '알 수 없음',
  REJECTED: '거절',
  EXPIRED: '만료',
};

function Changes({ changes }: { changes: { field: string; before: unknown; after: unknown }[] }) {
  return (
    <table className="diff">
      <caption className="visually-hidden">바뀌는 값</caption>
      <thead>
        <tr>
          <th scope="col">항목</th>
          <th scope="col">지금</th>
          <th scope="col">바뀐 뒤</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={c.field}>
            <th scope="row">{c.field}</th>
            <td className="del">{JSON.stringify(c.before)}</td>
            <td className="ins">{JSON.stringify(c.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export default function Approvals() {
  const { store } = useSession();
  const [status, setStatus] = useState('PENDING');
  const list = useLoad(() => data(api.GET('/v1/approval-requests', { params: { query: { status: status as 'PENDING' } } })), [store.storeId, status]);
  return (
    <Page title="승인 요청">
      <p className="muted">AI 에이전트가 보낸 요청 중 사람의 승인이 필요한 것들입니다.</p>
      <label className="inline">
        상태{' '}
        <select value={status} onChange={(e) => setStatus(e.target.value)}>
          {Object.entries(STATUS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <ErrorBox error={list.error} />
      {!list.value ? (
        <Loading />
      ) : list.value.contents.length === 0 ? (
        <p className="muted" data-testid="no-approvals">
          {STATUS[status]} 상태의 요청이 없습니다.
        </p>
      ) : (
        list.value.contents.map((a: any) => (
          <article key={a.approvalId} className="card approval" data-approval-id={a.approvalId}>
            <h2>
              {a.operationName ?? a.operationId}{' '}
              <Badge tone={a.status === 'PENDING' ? 'warn' : a.status === 'SUCCEEDED' ? 'good' : 'neutral'}>{STATUS[a.status] ?? a.status}</Badge>
            </h2>
            <dl className="facts">
              <dt>요청한 에이전트</dt>
              <dd>{a.requestedBy?.name}</dd>
              <dt>요청</dt>
              <dd>
                <code>
                  {a.request?.method} {a.request?.path}
                </code>
              </dd>
              <dt>대상</dt>
              <dd>{a.target ? `${a.target.type} ${a.target.id ?? ''}` : '—'}</dd>
              <dt>사유</dt>
              <dd>{a.reason}</dd>
              <dt>만료</dt>
              <dd>{kst(a.expiresAt)}</dd>
            </dl>
            {a.preview?.changes?.length ? <Changes changes={a.preview.changes} /> : null}
            {a.result ? (
              <p className="muted">
                결과: HTTP {a.result.statusCode} {a.result.error ? `${a.result.error.code}` : ''}
              </p>
            ) : null}
            {a.status === 'PENDING' ? (
              <p className="row">
                <ActionButton tone="primary" onRun={() => raw('POST', `/v1/approval-requests/${a.approvalId}/approve`, {}).then(list.reload)}>
                  승인
                </ActionButton>
                <ActionButton tone="danger" onRun={() => raw('POST', `/v1/approval-requests/${a.approvalId}/reject`, {}).then(list.reload)}>
                  거절
                </ActionButton>
              </p>
            ) : null}
          </article>
        ))
      )}
    </Page>
  );
}
