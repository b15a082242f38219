/**
 * Approvals: AI agents' requests held for a person (spec 01 §5.6). The person signed in here is the approver:
 * approve or reject each. A pending request carries its dry-run preview (`preview.changes`), shown as a
 * before → after diff per field path.
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

type Change = { field: string; before?: unknown; after?: unknown };
type Line = { path: string; before: unknown; after: unknown };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const scalarList = (v: unknown) => Array.isArray(v) && v.every((x) => !isRecord(x) && !Array.isArray(x));

/**
 * A change as lines per path: objects (and lists of objects) open into their fields (`fulfillment.type`,
 * `options[0].name`), so only what differs is shown; values and lists of plain values stay one line.
 */
function linesOf(path: string, before: unknown, after: unknown, out: Line[] = []): Line[] {
  const open = (v: unknown) => isRecord(v) || (Array.isArray(v) && !scalarList(v));
  if ((open(before) || open(after)) && (open(before) || before == null) && (open(after) || after == null)) {
    const keys = new Set<string>();
    for (const v of [before, after]) if (v != null) for (const k of Object.keys(v as object)) keys.add(k);
    for (const k of keys) {
      const at = Array.isArray(before ?? after) ? `${path}[${k}]` : `${path}.${k}`;
      linesOf(at, (before as Record<string, unknown> | null)?.[k], (after as Record<string, unknown> | null)?.[k], out);
    }
    return out;
  }
  if (JSON.stringify(before) !== JSON.stringify(after)) out.push({ path, before, after });
  return out;
}

/** A value as a person reads it: text as is, numbers grouped, yes/no, lists joined; nothing is "없음". */
function shown(v: unknown): string {
  if (v === null || v === undefined || v === '') return '없음';
  if (typeof v === 'number') return v.toLocaleString('ko-KR');
  if (typeof v === 'boolean') return v ? '예' : '아니요';
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && scalarList(v)) return v.length ? v.map(shown).join(', ') : '없음';
  return JSON.stringify(v);
}

/**
 * The preview's `changes` as a diff: per field path the value now (removed, red) and the one asked for
 * (added, green); each line also says so in text (이전/이후, −/+) for who does not see colour.
 */
function Changes({ changes }: { changes: Change[] }) {
  const lines = changes.flatMap((c) => linesOf(c.field, c.before ?? null, c.after ?? null));
  if (lines.length === 0) return null;
  return (
    <section className="diff" aria-label="바뀌는 내용">
      <h3>바뀌는 내용 {lines.length}건</h3>
      <ul>
        {lines.map((l) => (
          <li key={l.path} data-field={l.path}>
            <code className="diff-path">{l.path}</code>
            <del className={l.before == null ? 'del none' : 'del'}>
              <span aria-hidden="true">− </span>
              <span className="diff-label">이전</span> {shown(l.before)}
            </del>
            <ins className={l.after == null ? 'ins none' : 'ins'}>
              <span aria-hidden="true">+ </span>
              <span className="diff-label">이후</span> {shown(l.after)}
            </ins>
          </li>
        ))}
      </ul>
    </section>
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
