/**
 * Apps and storefront: the store's app installations with their scopes, their tools (called from a form built
 * from the tool's input shape) and recent runs; the hosted site's versions, builds (log and dependency report),
 * publish and rollback, a preview link, and its domains with the DNS records to add.
 */
import { useEffect, useState } from 'react';
import { api, data, idempotencyKey, raw } from '../api.js';
import { kst } from '../format.js';
import { useSession } from '../session.js';
import { ActionButton, Badge, ErrorBox, Loading, Page, Table, useLoad } from '../ui.js';

type Field = { type: string; description?: string; required?: boolean };
interface Tool {
  name: string;
  description: string;
  input: Record<string, Field>;
}

const RUN: Record<string, string> = { SUCCEEDED: '성공', FAILED: '실패', NEEDS_SETUP: '설정 필요', NOT_SENT: '보내지 않음' };
const KIND: Record<string, string> = { TOOL: '도구', NOTIFICATION: '알림', SCHEDULE: '예약 실행', HTTP: 'HTTP', EVENT: '이벤트' };
const BUILD: Record<string, string> = { QUEUED: '대기', RUNNING: '빌드 중', SUCCEEDED: '성공', FAILED: '실패' };
const DOMAIN: Record<string, string> = { PENDING_DNS: 'DNS 설정 대기', PENDING_VALIDATION: '확인 중', ACTIVE: '연결됨', FAILED: '실패' };
const tone = (status: string) =>
  status === 'SUCCEEDED' || status === 'ACTIVE' || status === 'SYNCED' ? 'good' : status === 'FAILED' || status === 'SUSPENDED' ? 'bad' : 'warn';

const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));
const simple = (input: Record<string, Field>) => Object.values(input).every((f) => ['string', 'number', 'boolean'].includes(f.type));

/** A tool's call form: one field per input key (string, number, boolean), or a JSON text when the shape is not simple. */
function ToolForm({ installationId, tool, onCalled }: { installationId: string; tool: Tool; onCalled: () => void }) {
  const { can } = useSession();
  const fields = Object.entries(tool.input ?? {});
  const asFields = simple(tool.input ?? {});
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [json, setJson] = useState('{}');
  const [result, setResult] = useState<{ value: unknown } | null>(null);
  const id = (key: string) => `tool-${installationId}-${tool.name}-${key}`;
  const input = (): Record<string, unknown> => {
    if (!asFields) return JSON.parse(json) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, f] of fields) {
      const v = values[key];
      if (f.type === 'boolean') {
        if (v !== undefined) out[key] = v === true;
      } else if (v !== undefined && v !== '') out[key] = f.type === 'number' ? Number(v) : v;
    }
    return out;
  };
  return (
    <li className="item" data-tool={tool.name}>
      <h4>
        <code>{tool.name}</code> <span className="muted">{tool.description}</span>
      </h4>
      {can('store:rw', ['OWNER', 'ADMIN']) ? (
        <div className="action-form">
          {asFields ? (
            fields.map(([key, f]) => (
              <label key={key} htmlFor={id(key)}>
                {key}
                {f.required ? ' (필수)' : ''}
                {f.description ? ` · ${f.description}` : ''}
                {f.type === 'boolean' ? (
                  <input id={id(key)} type="checkbox" checked={values[key] === true} onChange={(e) => setValues({ ...values, [key]: e.target.checked })} />
                ) : (
                  <input
                    id={id(key)}
                    type={f.type === 'number' ? 'number' : 'text'}
                    required={f.required}
                    value={String(values[key] ?? '')}
                    onChange={(e) => setValues({ ...values, [key]: e.target.value })}
                  />
                )}
              </label>
            ))
          ) : (
            <label htmlFor={id('json')}>
              입력 (JSON)
              <textarea id={id('json')} value={json} onChange={(e) => setJson(e.target.value)} />
            </label>
          )}
          <ActionButton
            tone="primary"
            onRun={async () => {
              setResult(null);
              const answer = await raw<{ result: unknown }>(
                'POST',
                `/v1/apps/installations/${installationId}/tools/${encodeURIComponent(tool.name)}`,
                { input: input() },
                { 'idempotency-key': idempotencyKey() },
              );
              setResult({ value: answer.result });
              onCalled();
            }}
          >
            실행
          </ActionButton>
        </div>
      ) : (
        <p className="muted">도구 실행은 OWNER·ADMIN만 할 수 있습니다.</p>
      )}
      {result ? (
        <pre className="code" data-testid="tool-result" aria-label={`${tool.name} 결과`}>
          {pretty(result.value)}
        </pre>
      ) : null}
    </li>
  );
}

function Installation({ inst }: { inst: any }) {
  const activity = useLoad(() => raw('GET', `/v1/apps/installations/${inst.installationId}/activity`), [inst.installationId]);
  const runs: any[] = activity.value?.deliveries ?? [];
  return (
    <article className="card" data-installation-id={inst.installationId}>
      <h3>
        {inst.app.name} <code>{inst.app.handle}</code>{' '}
        <Badge tone={inst.status === 'ACTIVE' && inst.app.status === 'ACTIVE' ? 'good' : 'bad'}>
          {inst.status === 'UNINSTALLED' ? '삭제됨' : inst.app.status === 'SUSPENDED' ? '일시 중지' : '사용 중'}
        </Badge>
        {inst.needsSetup ? <Badge tone="warn">설정 필요</Badge> : null}
        {inst.pendingVersion ? <Badge tone="warn">새 버전 동의 대기 (v{inst.pendingVersion.version})</Badge> : null}
      </h3>
      <dl className="facts">
        <dt>버전</dt>
        <dd>v{inst.version}</dd>
        <dt>허용한 권한</dt>
        <dd data-testid="scopes">{inst.permissions.scopes.length ? inst.permissions.scopes.join(', ') : '없음'}</dd>
        {inst.permissions.hosts.length ? (
          <>
            <dt>외부 호스트</dt>
            <dd>{inst.permissions.hosts.join(', ')}</dd>
          </>
        ) : null}
        <dt>설치일</dt>
        <dd>{kst(inst.installedAt)}</dd>
      </dl>
      <h4>도구</h4>
      {inst.tools.length === 0 ? (
        <p className="muted">도구가 없습니다.</p>
      ) : (
        <ul className="plain">
          {inst.tools.map((t: Tool) => (
            <ToolForm key={t.name} installationId={inst.installationId} tool={t} onCalled={activity.reload} />
          ))}
        </ul>
      )}
      <h4>최근 실행 기록</h4>
      <ErrorBox error={activity.error} />
      {!activity.value ? (
        <Loading />
      ) : runs.length === 0 ? (
        <p className="muted">아직 실행 기록이 없습니다.</p>
      ) : (
        <Table label="최근 실행 기록" className="nowrap" testId="app-runs" columns={['시각', '종류', '이름', '결과', '시간', '로그']}>
          {runs.slice(0, 20).map((r) => (
            <tr key={r.executionId}>
              <td>{kst(r.createdAt)}</td>
              <td>{KIND[r.kind] ?? r.kind}</td>
              <td>
                <code>{r.name}</code>
              </td>
              <td>
                <Badge tone={tone(r.status)}>{RUN[r.status] ?? r.status}</Badge>
                {r.errorCode ? ` ${r.errorCode}` : ''}
              </td>
              <td className="num">{r.durationMs}ms</td>
              <td>{r.logs.length ? <pre className="code">{r.logs.join('\n')}</pre> : (r.errorMessage ?? '—')}</td>
            </tr>
          ))}
        </Table>
      )}
      <p className="muted">
        최근 {activity.value?.apiCalls?.days ?? 7}일 API 호출 {activity.value?.apiCalls?.count ?? 0}건
      </p>
    </article>
  );
}

function Apps() {
  const { store } = useSession();
  const list = useLoad(() => data(api.GET('/v1/apps/installations')), [store.storeId]);
  return (
    <section aria-labelledby="apps-title">
      <h2 id="apps-title">설치한 앱</h2>
      <ErrorBox error={list.error} />
      {!list.value ? (
        <Loading />
      ) : list.value.contents.length === 0 ? (
        <p className="muted">설치한 앱이 없습니다. svc app install로 설치하세요.</p>
      ) : (
        list.value.contents.map((inst) => <Installation key={inst.installationId} inst={inst} />)
      )}
    </section>
  );
}

/** A build with its log and dependency report; followed while it runs, `onFinished` told once it ends. */
function Build({ buildId, onFinished }: { buildId: string; onFinished?: () => void }) {
  const build = useLoad(() => raw('GET', `/v1/storefront/site/builds/${buildId}`), [buildId]);
  const b = build.value;
  const running = b?.status === 'QUEUED' || b?.status === 'RUNNING';
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(build.reload, 1500);
    return () => clearTimeout(timer);
  }, [running, b, build.reload]);
  const finished = b?.status === 'SUCCEEDED' || b?.status === 'FAILED';
  useEffect(() => {
    if (finished) onFinished?.();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [finished]);
  if (!b) return build.error ? <ErrorBox error={build.error} /> : <Loading />;
  const deps = [...b.dependencies.rejected.map((d: any) => ({ ...d, rejected: true })), ...b.dependencies.warnings];
  return (
    <div className="item" data-build-id={b.buildId}>
      <p>
        빌드 <code>{b.buildId}</code> <Badge tone={tone(b.status)}>{BUILD[b.status] ?? b.status}</Badge>
        {b.failureStage ? ` 실패 단계 ${b.failureStage}` : ''}
        {b.errorCode ? ` (${b.errorCode})` : ''} · {kst(b.createdAt)}
        {b.status === 'QUEUED' || b.status === 'RUNNING' ? (
          <>
            {' '}
            <button type="button" className="link" onClick={build.reload}>
              새로 고침
            </button>
          </>
        ) : null}
      </p>
      <details>
        <summary>빌드 로그</summary>
        <pre className="code">{b.logTail || '(로그 없음)'}</pre>
      </details>
      <details>
        <summary>
          의존성 보고서 (거부 {b.dependencies.rejected.length} · 경고 {b.dependencies.warnings.length})
        </summary>
        {deps.length === 0 ? (
          <p className="muted">문제가 된 패키지가 없습니다.</p>
        ) : (
          <ul className="plain">
            {deps.map((d: any, i: number) => (
              <li key={i}>
                <Badge tone={d.rejected ? 'bad' : 'warn'}>{d.rejected ? '거부' : '경고'}</Badge>{' '}
                <code>
                  {d.package}
                  {d.version ? `@${d.version}` : ''}
                </code>{' '}
                {d.reason} — {d.detail}
                {d.advisory ? ` (${d.advisory})` : ''}
              </li>
            ))}
          </ul>
        )}
      </details>
    </div>
  );
}

function Storefront() {
  const { can, store } = useSession();
  const site = useLoad(() => data(api.GET('/v1/storefront/site')), [store.storeId]);
  const s: any = site.value;
  const exists = Boolean(s?.siteId);
  const versions = useLoad(() => (exists ? data(api.GET('/v1/storefront/site/versions')) : Promise.resolve(null)), [store.storeId, exists]);
  const deployment = useLoad(() => (exists ? data(api.GET('/v1/storefront/site/deployment')) : Promise.resolve(null)), [store.storeId, exists]);
  const domains = useLoad(() => (exists ? data(api.GET('/v1/storefront/site/domains')) : Promise.resolve(null)), [store.storeId, exists]);
  const [builds, setBuilds] = useState<string[]>([]);
  const [preview, setPreview] = useState<{ url: string; expiresAt: string } | null>(null);
  const write = can('storefront:rw');
  const changed = () => {
    site.reload();
    versions.reload();
  };
  const shownBuilds = [...builds, ...(deployment.value?.buildId && !builds.includes(deployment.value.buildId) ? [deployment.value.buildId] : [])];
  return (
    <section aria-labelledby="site-title">
      <h2 id="site-title">스토어프런트</h2>
      <ErrorBox error={site.error} />
      {!s ? (
        <Loading />
      ) : !exists ? (
        <p className="muted">아직 사이트가 없습니다. svc storefront deploy로 만드세요.</p>
      ) : (
        <>
          <dl className="facts" data-testid="site">
            <dt>주소</dt>
            <dd>{s.url ? <a href={s.url}>{s.url}</a> : s.slug}</dd>
            <dt>상태</dt>
            <dd>
              <Badge tone={tone(s.status)}>{s.status === 'ACTIVE' ? '운영 중' : s.status === 'SUSPENDED' ? '중지됨' : '닫는 중'}</Badge>{' '}
              {s.visibility === 'PUBLIC' ? '공개' : '오픈 예정 화면'}
            </dd>
            <dt>배포</dt>
            <dd>
              <Badge tone={tone(s.provisioning.status)}>
                {s.provisioning.status === 'SYNCED' ? '반영됨' : s.provisioning.status === 'FAILED' ? '실패' : '반영 중'}
              </Badge>
            </dd>
          </dl>
          {write ? (
            <p className="row">
              <ActionButton
                onRun={async () => {
                  const { buildId } = await raw<{ buildId: string }>('POST', '/v1/storefront/site/versions');
                  setBuilds((list) => [buildId, ...list]);
                }}
              >
                현재 파일로 새 버전 빌드
              </ActionButton>
              <ActionButton
                disabled={(versions.value?.contents.length ?? 0) < 2}
                onRun={() =>
                  raw(
                    'POST',
                    '/v1/storefront/site/rollback',
                    { expectedPublishedVersionId: s.publishedVersionId },
                    { 'idempotency-key': idempotencyKey() },
                  ).then(changed)
                }
              >
                이전 버전으로 되돌리기
              </ActionButton>
              {can('storefront:rw', ['OWNER', 'ADMIN']) ? (
                <ActionButton onRun={() => raw('POST', '/v1/storefront/site/preview-link', {}).then(setPreview)}>미리보기 링크 만들기</ActionButton>
              ) : null}
            </p>
          ) : null}
          {preview ? (
            <p role="status">
              미리보기 링크 ({kst(preview.expiresAt)}까지 열 수 있음): <a href={preview.url}>{preview.url}</a>
            </p>
          ) : null}
          <h3>버전</h3>
          <ErrorBox error={versions.error} />
          {!versions.value ? (
            <Loading />
          ) : (
            <Table label="사이트 버전" testId="site-versions" columns={['버전', '만든 시각', '크기', '상태', <span className="visually-hidden">동작</span>]}>
              {versions.value.contents.map((v) => (
                <tr key={v.versionId}>
                  <td>{v.number}</td>
                  <td>{kst(v.createdAt)}</td>
                  <td className="num">{Math.round((v.sizes.serverBundle + v.sizes.static) / 1024).toLocaleString('ko-KR')} KB</td>
                  <td>{v.published ? <Badge tone="good">게시됨</Badge> : v.previewable ? '미리보기 가능' : '—'}</td>
                  <td>
                    {write && !v.published ? (
                      <ActionButton
                        onRun={() =>
                          raw(
                            'POST',
                            `/v1/storefront/site/versions/${v.versionId}/publish`,
                            { expectedPublishedVersionId: s.publishedVersionId },
                            { 'idempotency-key': idempotencyKey() },
                          ).then(changed)
                        }
                      >
                        {v.number} 게시
                      </ActionButton>
                    ) : null}
                  </td>
                </tr>
              ))}
            </Table>
          )}
          <h3>빌드</h3>
          {shownBuilds.length === 0 ? (
            <p className="muted">빌드 기록이 없습니다.</p>
          ) : (
            shownBuilds.map((id) => <Build key={id} buildId={id} onFinished={builds.includes(id) ? versions.reload : undefined} />)
          )}
          <h3>도메인</h3>
          <ErrorBox error={domains.error} />
          {!domains.value ? (
            <Loading />
          ) : (
            <ul className="plain" data-testid="site-domains">
              {domains.value.contents.map((d) => (
                <li key={d.domainId} className="item">
                  <p>
                    <code>{d.hostname}</code> {d.kind === 'PLATFORM' ? '(기본 주소)' : ''} <Badge tone={tone(d.status)}>{DOMAIN[d.status] ?? d.status}</Badge>
                    {d.primary ? <Badge tone="good">대표 주소</Badge> : null}
                    {d.failureCode ? ` ${d.failureCode}` : ''}
                  </p>
                  {d.dnsRecords.length ? (
                    <Table label={`${d.hostname}에 추가할 DNS 레코드`} caption={<caption>추가할 DNS 레코드</caption>} columns={['유형', '이름', '값']}>
                      {d.dnsRecords.map((r, i) => (
                        <tr key={i}>
                          <td>{r.type}</td>
                          <td>
                            <code>{r.name}</code>
                          </td>
                          <td>
                            <code>{r.value}</code>
                          </td>
                        </tr>
                      ))}
                    </Table>
                  ) : null}
                  {write && d.kind === 'CUSTOM' && d.status !== 'ACTIVE' ? (
                    <ActionButton onRun={() => raw('POST', `/v1/storefront/site/domains/${d.domainId}/verify`, {}).then(domains.reload)}>
                      DNS 다시 확인
                    </ActionButton>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

export default function AppsPage() {
  const { can } = useSession();
  return (
    <Page title="앱·스토어프런트">
      {can('store:r') ? <Apps /> : null}
      {can('storefront:r') ? <Storefront /> : <p className="muted">스토어프런트를 볼 권한(storefront:r)이 없습니다.</p>}
    </Page>
  );
}
