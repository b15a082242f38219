/** API log: the store's requests, searched by trace id (every answer carries one), with each request's outcome. */
import { useState } from 'react';
import { raw } from '../api.js';
import { kst } from '../format.js';
import { useSession } from '../session.js';
import { Badge, ErrorBox, Loading, Page, useLoad } from '../ui.js';

export default function ApiLogs() {
  const { store } = useSession();
  const [traceId, setTraceId] = useState('');
  const [applied, setApplied] = useState('');
  const logs = useLoad(() => raw('GET', `/v1/api-logs?limit=20${applied ? `&traceId=${encodeURIComponent(applied)}` : ''}`), [store.storeId, applied]);
  return (
    <Page title="API 로그">
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(traceId.trim());
        }}
      >
        <label>
          traceId
          <input value={traceId} onChange={(e) => setTraceId(e.target.value)} placeholder="응답의 x-trace-id" />
        </label>
        <button type="submit">검색</button>
      </form>
      <ErrorBox error={logs.error} />
      {!logs.value ? (
        <Loading />
      ) : logs.value.contents.length === 0 ? (
        <p className="muted">{applied ? `traceId ${applied}의 요청이 없습니다.` : '기록된 요청이 없습니다.'}</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">API 요청 기록</caption>
            <thead>
              <tr>
                <th scope="col">시각</th>
                <th scope="col">요청</th>
                <th scope="col">결과</th>
                <th scope="col">호출자</th>
                <th scope="col">traceId</th>
              </tr>
            </thead>
            <tbody>
              {logs.value.contents.map((l: any) => (
                <tr key={l.apiLogId}>
                  <td>{kst(l.createdAt)}</td>
                  <td>
                    <code>
                      {l.method} {l.path}
                    </code>
                    <div className="muted">{l.operationId}</div>
                  </td>
                  <td>
                    <Badge tone={l.status < 300 ? 'good' : l.status < 500 ? 'warn' : 'bad'}>{l.status}</Badge> {l.errorCode ?? ''} · {l.durationMs}ms
                  </td>
                  <td>
                    {l.actor.type} {l.actor.id}
                  </td>
                  <td>
                    <button type="button" className="link" onClick={() => (setTraceId(l.traceId), setApplied(l.traceId))}>
                      {l.traceId}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
