/**
 * Dev tools (svc dev only): the service's clock, the mail it sent, due jobs. The one page that calls `/_dev`;
 * under svc serve those routes do not exist and the page says so.
 */
import { useState } from 'react';
import { raw } from '../api.js';
import { kst, won } from '../format.js';
import { ActionButton, ErrorBox, Loading, Page, useLoad } from '../ui.js';

export default function DevTools() {
  const clock = useLoad(() => raw('GET', '/_dev/v1/clock'), []);
  const mail = useLoad(() => raw('GET', '/_dev/v1/mail'), []);
  // Payments waiting at the sandbox gateway (a buyer left the pay page open): decided here as the gateway would.
  const waiting = useLoad(() => raw('GET', '/v1/payments?status=READY,CONFIRMING&includeTest=true&size=20').catch(() => null), []);
  const [seconds, setSeconds] = useState('3600');
  const [jobs, setJobs] = useState<string>('');
  if (clock.error) return <Page title="개발 도구">{<p className="muted">이 서비스에는 개발 도구가 없습니다 (svc dev에서만 열립니다).</p>}</Page>;
  return (
    <Page title="개발 도구">
      <section>
        <h2>시계</h2>
        {!clock.value ? (
          <Loading />
        ) : (
          <p>
            {clock.value.kind === 'manual' ? '수동 시계' : '시스템 시계'} · 지금 <strong>{kst(clock.value.now)}</strong>
          </p>
        )}
        {clock.value?.kind === 'manual' ? (
          <p className="row">
            <label>
              앞당길 초 <input type="number" min={1} value={seconds} onChange={(e) => setSeconds(e.target.value)} className="narrow" />
            </label>
            <ActionButton onRun={() => raw('POST', '/_dev/v1/clock/advance', { seconds: Number(seconds) }).then(clock.reload)}>시간 앞당기기</ActionButton>
          </p>
        ) : null}
        <ActionButton
          onRun={async () => {
            const result = await raw('POST', '/_dev/v1/jobs/run', {});
            setJobs(JSON.stringify(result.jobs));
          }}
        >
          예약 작업 지금 실행
        </ActionButton>{' '}
        <span role="status">{jobs}</span>
      </section>
      <section>
        <h2>샌드박스 결제 결정</h2>
        {!waiting.value?.contents?.length ? (
          <p className="muted">결정을 기다리는 테스트 결제가 없습니다.</p>
        ) : (
          <ul className="plain">
            {waiting.value.contents.map((p: any) => (
              <li key={p.paymentId} className="row">
                <span>
                  {p.orderNo} · {won(p.amount)} · {p.status}
                </span>
                {['APPROVE', 'REFUSE', 'CANCEL'].map((outcome) => (
                  <ActionButton key={outcome} onRun={() => raw('POST', `/_dev/v1/payments/${p.paymentId}/simulate`, { outcome }).then(waiting.reload)}>
                    {outcome === 'APPROVE' ? '승인' : outcome === 'REFUSE' ? '거절' : '취소'}
                  </ActionButton>
                ))}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h2>보낸 메일</h2>
        <ErrorBox error={mail.error} />
        {!mail.value ? (
          <Loading />
        ) : mail.value.contents.length === 0 ? (
          <p className="muted">보낸 메일이 없습니다.</p>
        ) : (
          <ul className="plain">
            {mail.value.contents.map((m: any) => (
              <li key={m.mailId}>
                {kst(m.createdAt ?? m.sentAt)} · {m.to} · {m.subject}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}
