/**
 * Flows: the store's order flows. A flow's published version as a graph; its draft edited as the definition
 * document (states, transitions, timers, notification and event blocks), checked with the problems listed,
 * simulated with the trace stepped through on the graph, and published.
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import { raw } from '../api.js';
import type { FlowDefinition } from '../flow-graph.js';
import { useSession } from '../session.js';
import { ActionButton, Badge, ErrorBox, Loading, Page, useLoad } from '../ui.js';

const FlowGraph = lazy(() => import('../flow-graph.js'));

interface Problem {
  code: string;
  path: string;
  message: string;
}

function FlowDetail({ flowId, onCreated }: { flowId: string; onCreated: (flowId: string) => void }) {
  const { can } = useSession();
  const flow = useLoad(async () => {
    const f = await raw('GET', `/v1/commerce-flows/${flowId}`);
    const published = f.publishedVersion ? await raw('GET', `/v1/commerce-flows/${flowId}/versions/${f.publishedVersion}`) : null;
    return { flow: f, published };
  }, [flowId]);
  const [text, setText] = useState('');
  const [parseError, setParseError] = useState<string | null>(null);
  const [check, setCheck] = useState<{ errors: Problem[]; warnings: Problem[] } | null>(null);
  const [steps, setSteps] = useState('[{ "action": "FULFILL" }]');
  const [trace, setTrace] = useState<any[] | null>(null);
  const [at, setAt] = useState(0);
  const [message, setMessage] = useState('');
  useEffect(() => {
    const v = flow.value;
    if (v) setText(JSON.stringify(v.flow.draft ?? v.published?.definition ?? {}, null, 2));
    setCheck(null);
    setTrace(null);
  }, [flow.value]);
  if (!flow.value) return flow.error ? <ErrorBox error={flow.error} /> : <Loading />;
  const { flow: f, published } = flow.value;
  // The default flows are the store's fallback and stay as shipped (FLOW_DEFAULT_LOCKED): a copy is edited instead.
  const editable = can('flow:rw') && !f.isDefault;
  let draft: FlowDefinition | null = null;
  try {
    draft = JSON.parse(text) as FlowDefinition;
  } catch {
    draft = null;
  }
  const drawn = draft?.states && draft.transitions ? draft : (published?.definition as FlowDefinition | undefined);
  const current = trace ? trace[Math.min(at, trace.length - 1)]?.to : drawn?.initial;
  const save = () => {
    try {
      return raw('PUT', `/v1/commerce-flows/${flowId}/draft`, { definition: JSON.parse(text) });
    } catch (e) {
      setParseError((e as Error).message);
      throw e;
    }
  };
  return (
    <section className="flow-detail">
      <h2>
        {f.name} {f.isDefault ? <Badge>기본</Badge> : null}{' '}
        <Badge tone={f.publishedVersion ? 'good' : 'warn'}>{f.publishedVersion ? `게시 v${f.publishedVersion}` : '미게시'}</Badge>
      </h2>
      {drawn ? (
        <Suspense fallback={<Loading />}>
          <FlowGraph definition={drawn} current={current} label={`${f.name} 흐름`} />
        </Suspense>
      ) : null}
      {check ? (
        <div className="check" data-testid="check-result">
          {check.errors.length === 0 && check.warnings.length === 0 ? <p className="muted">문제가 없습니다.</p> : null}
          <ul>
            {check.errors.map((p, i) => (
              <li key={`e${i}`} className="error">
                {p.path}: {p.message} ({p.code})
              </li>
            ))}
            {check.warnings.map((p, i) => (
              <li key={`w${i}`}>
                경고 {p.path}: {p.message} ({p.code})
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {trace ? (
        <div className="trace">
          <label>
            시뮬레이션 단계 {Math.min(at, trace.length - 1) + 1} / {trace.length}
            <input type="range" min={0} max={trace.length - 1} value={Math.min(at, trace.length - 1)} onChange={(e) => setAt(Number(e.target.value))} />
          </label>
          <ol>
            {trace.map((t, i) => (
              <li key={i} className={i === at ? 'current' : ''}>
                {t.trigger.kind === 'action'
                  ? `처리 ${t.trigger.key}`
                  : t.trigger.kind === 'event'
                    ? `이벤트 ${t.trigger.name}`
                    : t.trigger.kind === 'timer'
                      ? '타이머'
                      : '시작'}
                : {t.from ?? '—'} → {t.to}
                {t.refusal ? ` (거부: ${t.refusal.code})` : ''}
                {t.notifications?.length ? ` · 알림 ${t.notifications.map((n: any) => n.channel).join(', ')}` : ''}
              </li>
            ))}
          </ol>
        </div>
      ) : null}
      {f.isDefault && can('flow:rw') ? (
        <p className="row">
          <span className="muted">기본 흐름은 바꿀 수 없습니다. 복사해서 새 흐름으로 고치세요.</span>
          <ActionButton
            onRun={async () => {
              const created = await raw('POST', '/v1/commerce-flows', { name: `${f.name} 사본`, kind: f.kind, definition: published?.definition ?? f.draft });
              onCreated(created.flowId);
            }}
          >
            복사해서 새 흐름 만들기
          </ActionButton>
        </p>
      ) : null}
      <h3>{editable ? '초안' : '정의'}</h3>
      <label>
        정의 (JSON: states, transitions, actions, timers, notifications)
        <textarea className="code editor" spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} readOnly={!editable} />
      </label>
      {parseError || !draft ? <p className="error">JSON 형식이 올바르지 않습니다.</p> : null}
      {editable ? (
        <>
          <label>
            시뮬레이션 단계 (JSON)
            <textarea className="code" spellCheck={false} value={steps} onChange={(e) => setSteps(e.target.value)} />
          </label>
          <p className="row">
            <ActionButton
              onRun={async () => {
                await save();
                setMessage('초안을 저장했습니다.');
              }}
            >
              초안 저장
            </ActionButton>
            <ActionButton
              onRun={async () => {
                await save();
                setCheck(await raw('POST', `/v1/commerce-flows/${flowId}/draft/check`));
              }}
            >
              검사
            </ActionButton>
            <ActionButton
              onRun={async () => {
                await save();
                const result = await raw('POST', `/v1/commerce-flows/${flowId}/draft/simulate`, { steps: JSON.parse(steps) });
                setTrace(result.trace);
                setAt(0);
              }}
            >
              시뮬레이션
            </ActionButton>
            <ActionButton
              tone="primary"
              onRun={async () => {
                await save();
                const published = await raw('POST', `/v1/commerce-flows/${flowId}/publish`);
                setMessage(`v${published.version ?? ''} 게시했습니다.`);
                flow.reload();
              }}
            >
              게시
            </ActionButton>
          </p>
        </>
      ) : null}
      <p role="status">{message}</p>
    </section>
  );
}

export default function Flows() {
  const { store } = useSession();
  const flows = useLoad(() => raw('GET', '/v1/commerce-flows'), [store.storeId]);
  const [chosen, setChosen] = useState<string | null>(null);
  const { reload } = flows;
  const list: any[] = flows.value?.contents ?? [];
  const flowId = chosen ?? list[0]?.flowId ?? null;
  return (
    <Page title="주문 흐름">
      <ErrorBox error={flows.error} />
      {!flows.value ? (
        <Loading />
      ) : (
        <>
          <label className="inline">
            흐름{' '}
            <select value={flowId ?? ''} onChange={(e) => setChosen(e.target.value)}>
              {list.map((f) => (
                <option key={f.flowId} value={f.flowId}>
                  {f.name}
                </option>
              ))}
            </select>
          </label>
          {flowId ? (
            <FlowDetail
              key={flowId}
              flowId={flowId}
              onCreated={(id) => {
                setChosen(id);
                reload();
              }}
            />
          ) : (
            <p className="muted">흐름이 없습니다.</p>
          )}
        </>
      )}
    </Page>
  );
}
