import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { H3Event } from 'h3';
import { errorOutgoing, newTraceId, toApiError } from '../../server/envelope.js';
import type { Services } from '../../server/services.js';
import { decided, toolResult, undecided, type ApprovalView, type ToolExtra } from '../../mcp-server/server.js';
import type { Principal } from '../../kernel/identity.js';
import { principalOfRecord } from '../accounts/index.js';
import { CONFIRMATION_WINDOW_MS, redeemConfirmation } from '../approvals/index.js';
import { deciderCtx } from '../approvals/index.js';
import { resolveStore } from '../stores/index.js';
import { decideApproval } from '../approvals/index.js';

/** The remote MCP session asking: its agent (the latest request's token) and that request. */
interface Connection {
  principalOf(): Principal | Promise<Principal>;
  event(): H3Event;
}

/**
 * decide_approval over remote MCP (spec 01 §5.6). A form is answered by the MCP client — the agent's own
 * software — so the form asks for what only a person can know: the one-time code the approval page shows
 * them once they log in there with their own account and choose to confirm in the AI conversation. A code
 * answered within the form's 2 minutes decides as that person (their login, their role, their choice of
 * APPROVE or REJECT), recorded `APPROVAL_DECIDED` with actor USER, source MCP, `metadata.via`
 * MCP_ELICITATION; it is not an AI action. Anything else changes nothing and says why, with `approvalUrl`.
 */
export async function confirmByCode(
  services: Services,
  server: Server,
  input: { approval: ApprovalView; decision: 'APPROVE' | 'REJECT'; storeId: string },
  connection: Connection,
  extra: ToolExtra,
): Promise<CallToolResult> {
  const { approval } = input;
  if (!server.getClientCapabilities()?.elicitation?.form) {
    return undecided(
      approval,
      'HUMAN_CONFIRMATION_REQUIRED',
      'This client shows no forms: a person (OWNER or ADMIN) approves or rejects at approvalUrl, logged in with their own account.',
    );
  }
  const askedAt = services.clock.now();
  // The window is the service's 2 minutes (a manual clock in tests and demos moves it too).
  const windowEnded = new AbortController();
  const watch = setInterval(() => {
    if (services.clock.now() - askedAt > CONFIRMATION_WINDOW_MS) windowEnded.abort();
  }, 200);
  let answer;
  try {
    answer = await server.elicitInput(
      {
        mode: 'form',
        message: formMessage(input),
        requestedSchema: {
          type: 'object',
          properties: { code: { type: 'string', title: '확인 코드', description: '승인 페이지에 표시된 8자리 코드', minLength: 1, maxLength: 32 } },
          required: ['code'],
        },
      },
      { timeout: CONFIRMATION_WINDOW_MS, signal: AbortSignal.any([extra.signal, windowEnded.signal]), relatedRequestId: extra.requestId },
    );
  } catch {
    return undecided(approval, 'NO_ANSWER', 'No answer within 2 minutes: nothing changed. A person may still decide at approvalUrl.');
  } finally {
    clearInterval(watch);
  }
  if (services.clock.now() - askedAt > CONFIRMATION_WINDOW_MS) {
    return undecided(approval, 'CONFIRMATION_EXPIRED', 'The form was answered after its 2 minutes: nothing changed. Ask again, or decide at approvalUrl.');
  }
  if (answer.action !== 'accept') {
    return undecided(
      approval,
      answer.action === 'decline' ? 'DECLINED' : 'CANCELLED',
      `The form was ${answer.action === 'decline' ? 'declined' : 'closed'}: nothing changed.`,
    );
  }
  const traceId = newTraceId();
  try {
    // The connection names its store by id or code: the codes are kept under the id, in the agent's own store.
    const store = await resolveStore(services, await connection.principalOf(), input.storeId);
    const redeemed = await redeemConfirmation(services, store.id, approval.approvalId, String(answer.content?.code ?? ''));
    if ('refused' in redeemed) {
      return undecided(
        approval,
        redeemed.refused,
        redeemed.refused === 'CODE_INVALID'
          ? 'The code is not one the approval page showed for this request (or it was used, or too many wrong codes were typed): nothing changed. A person takes a new code at approvalUrl.'
          : 'The code was older than 2 minutes: nothing changed. A person takes a new code at approvalUrl.',
      );
    }
    // The person's own login from the page, as it is now: logged out or no longer OWNER/ADMIN, nothing is decided.
    const person = await principalOfRecord(services, 'login', redeemed.sessionId);
    const ctx = await deciderCtx(services, { ...person, source: 'MCP' }, store.id, approval.approvalId, connection.event(), traceId);
    return decided(await decideApproval(ctx, approval.approvalId, redeemed.decision, { via: 'MCP_ELICITATION' }));
  } catch (error) {
    const err = toApiError(error, traceId);
    const out = errorOutgoing(err, traceId, `${services.config.origin}/docs/errors`);
    return toolResult({ status: out.status, body: JSON.parse(out.body) });
  }
}

function formMessage({ approval, decision }: { approval: ApprovalView; decision: 'APPROVE' | 'REJECT' }) {
  return [
    `AI 에이전트(${approval.requestedBy.name})가 승인 요청을 ${decision === 'APPROVE' ? '승인' : '거절'}하자고 제안합니다.`,
    `작업: ${approval.operationName} (${approval.operationId}) · ${approval.request.method} ${approval.request.path}`,
    ...(approval.target ? [`대상: ${approval.target.type} ${approval.target.id ?? ''}`.trimEnd()] : []),
    '이 창의 답만으로는 결정되지 않습니다. 결정하려면:',
    `1. ${approval.approvalUrl} 을 열고 상점 플랫폼 계정(소유자 또는 관리자)으로 로그인하세요.`,
    '2. 페이지에서 요청 내용을 확인하고 "AI 대화에서 승인" 또는 "AI 대화에서 거절"을 누르세요.',
    '3. 페이지에 표시된 확인 코드를 2분 안에 여기에 입력하세요. 결정은 페이지에서 고른 대로입니다.',
  ].join('\n');
}
