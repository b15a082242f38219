import { eq } from 'drizzle-orm';
import { getCookie, getRouterParam, type H3, type H3Event } from 'h3';
import { seoulDateTimeOf } from '../../db/clock.js';
import { readBodyText } from '../../server/body.js';
import { newTraceId, toApiError } from '../../server/envelope.js';
import { ApiError, fail } from '../../server/errors.js';
import { formToken, formTokenValid } from '../../server/form-token.js';
import { escapeHtml, htmlResponse, pageCookie } from '../../server/html.js';
import type { Services } from '../../server/services.js';
import { STORE_PLATFORM_CLIENT } from '../accounts/index.js';
import { clientAddress, PAGE_STYLE } from '../accounts/index.js';
import type { Principal } from '../../kernel/identity.js';
import { authenticate } from '../accounts/index.js';
import { openLoginSession, verifyCredentials } from '../accounts/index.js';
import { issueConfirmation } from './confirmations.js';
import { deciderCtx } from './decider.js';
import { approvalRequests } from './schema.js';
import { decideApproval, effectiveStatus, heldRequestPreview, presentApproval } from './service.js';
import { KOREAN_FONT_LINK } from '../../server/fonts.js';

const FORM_LIMIT = 4096;
/** The page's own login: an HttpOnly cookie scoped to the approval pages, as long as the login token lives. */
const COOKIE = 'svc_approver';
const COOKIE_SECONDS = 15 * 60;

const STYLE = `${PAGE_STYLE}
main.wide{width:560px;max-width:92vw}dl{display:grid;grid-template-columns:auto 1fr;gap:6px 12px;font-size:14px}dt{color:#666}dd{margin:0;word-break:break-all}
table{border-collapse:collapse;width:100%;font-size:13px;margin-top:8px;table-layout:fixed}td,th{border-bottom:1px solid #eee;padding:6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.changes th:first-child{width:28%}.none{color:#999}ol.value,dl.value{margin:0;padding-left:16px}dl.value{display:grid;grid-template-columns:auto 1fr;gap:2px 8px;padding:0}dl.value dt{color:#777}
.status{display:inline-block;border-radius:6px;padding:2px 8px;font-size:12px;background:#eef}.code{font:600 28px ui-monospace,monospace;letter-spacing:4px}.ok{color:#176d2c;font-size:14px}button[value=approve]{background:#1f5eff;color:#fff}button[value=reject]{background:#fee}`;

/**
 * The page at `approvalUrl` (issue 16): a person logs in to the store platform, sees what the agent's held
 * request would change, and approves or rejects it — the same decision as the approval API's, by OWNER or
 * ADMIN (owner-only requests by an OWNER), recorded with `metadata.via` APPROVAL_PAGE. Or the person takes a
 * one-time code for their decision to type into the AI conversation's form (confirmations.ts): the form alone
 * is answered by the agent's own client, the code only this page shows.
 */
export function mountApprovalPage(app: H3, services: Services) {
  // Every approval page, no other path; never sent along from another site's page.
  const cookieHeader = (event: H3Event, token: string) =>
    pageCookie(event, services.config.origin, { name: COOKIE, value: token, path: '/approvals', maxAgeSeconds: COOKIE_SECONDS, sameSite: 'Strict' });

  /** The person logged in on this page, if the cookie still holds a live store-platform login. */
  async function viewer(event: H3Event): Promise<Principal | null> {
    const token = getCookie(event, COOKIE);
    if (!token) return null;
    try {
      const principal = await authenticate(services, `Bearer ${token}`);
      return principal.storePlatform ? principal : null;
    } catch {
      return null;
    }
  }

  app.get('/approvals/:approvalId', async (event) => {
    const approvalId = getRouterParam(event, 'approvalId', { decode: true })!;
    const principal = await viewer(event);
    return principal ? detailPage(services, event, approvalId, principal) : loginPage(approvalId);
  });

  app.post('/approvals/:approvalId', async (event) => {
    const approvalId = getRouterParam(event, 'approvalId', { decode: true })!;
    let form: URLSearchParams;
    try {
      form = new URLSearchParams(await readBodyText(event, FORM_LIMIT));
    } catch (error) {
      if (error instanceof ApiError) return errorPage(error.code, error.message, error.status);
      throw error;
    }
    const action = form.get('action');
    if (action === 'login') {
      let principal: Principal;
      try {
        const user = await verifyCredentials(services, form.get('email') ?? '', form.get('password') ?? '', clientAddress(event, services));
        const tokens = await openLoginSession(services, { userId: user.id, clientId: STORE_PLATFORM_CLIENT, scope: '*', authTime: services.clock.now() });
        principal = await authenticate(services, `Bearer ${tokens.accessToken}`);
        return detailPage(services, event, approvalId, principal, { headers: { 'set-cookie': cookieHeader(event, tokens.accessToken) } });
      } catch (error) {
        if (error instanceof ApiError && (error.code === 'INVALID_LOGIN' || error.status === 429)) return loginPage(approvalId, error, error.headers);
        throw error;
      }
    }
    const decision = DECISIONS[action ?? ''];
    if (!decision) return errorPage('VALIDATION_FAILED', '알 수 없는 요청입니다.', 400);
    const principal = await viewer(event);
    if (!principal) return loginPage(approvalId, fail(401, 'UNAUTHORIZED'));
    // The form token binds the buttons to this approval and this login: another site cannot press them.
    if (!formTokenValid(services, 'approval-decision', `${approvalId}\n${principal.tokenId}`, form.get('formToken'))) {
      return errorPage('CROSS_ORIGIN_FORBIDDEN', '이 페이지에서 보낸 결정이 아닙니다. 페이지를 새로 열어 다시 시도하세요.', 403);
    }
    const traceId = newTraceId();
    try {
      const row = await findRow(services, approvalId);
      const ctx = await deciderCtx(services, principal, row.storeId, approvalId, event, traceId);
      if (action !== 'approve' && action !== 'reject') {
        return detailPage(services, event, approvalId, principal, { confirmation: { ...(await issueConfirmation(ctx, approvalId, decision)), decision } });
      }
      await decideApproval(ctx, approvalId, decision, { via: 'APPROVAL_PAGE' });
      return detailPage(services, event, approvalId, principal, {
        notice: decision === 'APPROVE' ? '승인했습니다. 요청이 실행되었습니다.' : '거절했습니다. 요청은 실행되지 않습니다.',
      });
    } catch (error) {
      return detailPage(services, event, approvalId, principal, { error: toApiError(error, traceId) });
    }
  });
}

/** The page's buttons: decide here, or take a code that decides in the AI conversation. */
const DECISIONS: Record<string, 'APPROVE' | 'REJECT'> = { approve: 'APPROVE', reject: 'REJECT', 'confirm-approve': 'APPROVE', 'confirm-reject': 'REJECT' };

async function findRow(services: Services, approvalId: string) {
  const row = await services.db.select().from(approvalRequests).where(eq(approvalRequests.id, approvalId)).get();
  if (!row) throw fail(404, 'APPROVAL_NOT_FOUND');
  return row;
}

async function detailPage(
  services: Services,
  event: H3Event,
  approvalId: string,
  principal: Principal,
  extra: {
    notice?: string;
    error?: ApiError;
    headers?: Record<string, string>;
    confirmation?: { code: string; expiresAt: number; decision: 'APPROVE' | 'REJECT' };
  } = {},
) {
  let view;
  try {
    const row = await findRow(services, approvalId);
    // Another store's request reads as missing: its id reveals nothing to outsiders.
    const ctx = await (async () => {
      try {
        return await deciderCtx(services, principal, row.storeId, approvalId, event, newTraceId());
      } catch (error) {
        if (error instanceof ApiError && error.code !== 'INSUFFICIENT_ROLE') throw fail(404, 'APPROVAL_NOT_FOUND');
        throw error;
      }
    })();
    const status = effectiveStatus(row, services.clock.now());
    const approval = presentApproval(services, { ...row, status });
    view = {
      approval,
      changes: status === 'PENDING' ? (await heldRequestPreview(ctx, approvalId)).changes : [],
      role: ctx.store.role,
      ownerOnly: row.ownerOnly,
    };
  } catch (error) {
    const err = toApiError(error, newTraceId());
    return errorPage(err.code, err.message, err.status, extra.headers);
  }
  const { approval, changes } = view;
  const rows: [string, string][] = [
    ['작업', `${approval.operationName} (${approval.operationId})`],
    ['요청', `${approval.request.method} ${approval.request.path}`],
    ...(approval.target ? [['대상', `${approval.target.type} ${approval.target.id ?? ''}`] as [string, string]] : []),
    ['요청한 에이전트', approval.requestedBy.name],
    ['사유', approval.reason],
    ['요청 시각', kst(approval.createdAt)],
    ['만료', kst(approval.expiresAt)],
    ...(approval.decidedAt ? [['결정', `${kst(approval.decidedAt)} · ${approval.decidedBy}`] as [string, string]] : []),
    ...(approval.result
      ? [['결과', `HTTP ${approval.result.statusCode}${approval.result.error ? ` ${approval.result.error.code}` : ''}`] as [string, string]]
      : []),
  ];
  const changeTable = changes.length
    ? `<table class="changes"><tr><th>항목</th><th>현재</th><th>변경 후</th></tr>${changes.map((c) => `<tr class="change"><td>${escapeHtml(c.field)}</td><td>${shown(c.before)}</td><td>${shown(c.after)}</td></tr>`).join('')}</table>`
    : '';
  const buttons =
    approval.status === 'PENDING'
      ? `<form method="post"><input type="hidden" name="formToken" value="${formToken(services, 'approval-decision', `${approvalId}\n${principal.tokenId}`)}">
<div class="row"><button name="action" value="reject">거절</button><button name="action" value="approve">승인하고 실행</button></div>
<p>AI 대화에서 결정하려면 코드를 받아 대화의 확인 창에 입력하세요.</p><div class="row"><button name="action" value="confirm-reject">AI 대화에서 거절</button><button name="action" value="confirm-approve">AI 대화에서 승인</button></div></form>${view.ownerOnly && view.role !== 'OWNER' ? '<p class="err">이 요청은 소유자(OWNER)만 승인할 수 있습니다.</p>' : ''}`
      : '';
  const message = extra.error
    ? `<p class="err" data-code="${escapeHtml(extra.error.code)}">${escapeHtml(extra.error.code)}: ${escapeHtml(extra.error.message)}</p>`
    : extra.notice
      ? `<p class="ok">${escapeHtml(extra.notice)}</p>`
      : '';
  const confirmation = extra.confirmation
    ? `<p class="ok">AI 대화의 확인 창에 이 코드를 입력하면 ${extra.confirmation.decision === 'APPROVE' ? '승인하고 실행합니다' : '거절합니다'}. ${escapeHtml(seoulDateTimeOf(extra.confirmation.expiresAt))}까지(2분), 한 번만 쓸 수 있습니다.</p>
<p class="code" data-confirmation-code="${extra.confirmation.code}" data-decision="${extra.confirmation.decision}">${extra.confirmation.code}</p>`
    : '';
  const markup = `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>승인 요청 ${escapeHtml(approval.approvalId)}</title>${KOREAN_FONT_LINK}<style>${STYLE}</style></head>
<body><main class="wide"><h1>AI 작업 승인 요청</h1><p><span class="status" data-status="${approval.status}">${approval.status}</span> ${escapeHtml(principal.userName)} (${view.role})</p>${message}${confirmation}
<dl>${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>${changeTable}${buttons}</main></body></html>`;
  return htmlResponse(markup, extra.error?.status ?? 200, extra.headers);
}

const kst = (iso: string) => seoulDateTimeOf(Date.parse(iso));

/**
 * A value of the preview's `changes` as a person reads it: text as is, numbers grouped, yes/no, nested
 * records as a list of their fields — never raw JSON that runs off the card.
 */
function shown(value: unknown): string {
  if (value === null || value === undefined) return '<span class="none">없음</span>';
  if (typeof value === 'string') return value === '' ? '<span class="none">(빈 값)</span>' : escapeHtml(value);
  if (typeof value === 'number') return value.toLocaleString('ko-KR');
  if (typeof value === 'boolean') return value ? '예' : '아니오';
  if (Array.isArray(value)) {
    if (value.length === 0) return '<span class="none">(없음)</span>';
    return `<ol class="value">${value.map((v) => `<li>${shown(v)}</li>`).join('')}</ol>`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '<span class="none">(없음)</span>';
  return `<dl class="value">${entries.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${shown(v)}</dd>`).join('')}</dl>`;
}

function loginPage(approvalId: string, error?: ApiError, headers?: Record<string, string>) {
  return htmlResponse(
    `<!doctype html><html lang="ko"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>svc 승인 요청</title>${KOREAN_FONT_LINK}<style>${STYLE}</style></head>
<body><main><h1>AI 작업 승인 요청</h1><p>상점 플랫폼 계정(소유자 또는 관리자)으로 로그인하면 요청 내용을 보고 승인하거나 거절할 수 있습니다.</p>
${error ? `<p class="err" data-code="${escapeHtml(error.code)}">${escapeHtml(error.message)}</p>` : ''}
<form method="post" action="/approvals/${encodeURIComponent(approvalId)}"><input type="hidden" name="action" value="login">
<label for="email">이메일</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">비밀번호</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<div class="row"><button name="decision" value="allow">로그인</button></div></form></main></body></html>`,
    error?.status ?? 200,
    headers,
  );
}

function errorPage(code: string, message: string, status: number, headers?: Record<string, string>) {
  return htmlResponse(
    `<!doctype html><html lang="ko"><head><meta charset="utf-8"><title>svc 승인 요청</title>${KOREAN_FONT_LINK}<style>${STYLE}</style></head><body><main><h1>승인 요청</h1><p class="err" data-code="${escapeHtml(code)}">${escapeHtml(code)}: ${escapeHtml(message)}</p></main></body></html>`,
    status,
    headers,
  );
}
