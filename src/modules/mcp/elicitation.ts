import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { H3Event } from 'h3';
import { errorOutgoing, newTraceId, toApiError } from '../../server/envelope.js';
import type { Services } from '../../server/services.js';
import { toolResult, undecided, type Gateway, type ToolExtra } from '../../mcp/server.js';
import type { Principal } from '../accounts/principal.js';
import { deciderCtx } from '../approvals/decider.js';
import { decideApproval, heldRequestPreview } from '../approvals/service.js';

/** Spec 01 §8: a person confirms an approval in an MCP conversation within 2 minutes, or nothing changes. */
export const CONFIRMATION_WINDOW_MS = 2 * 60_000;

interface Connection {
  /** The person behind the current request's token. */
  principalOf(): Principal | Promise<Principal>;
  event(): H3Event;
}

/**
 * decide_approval over remote MCP (spec 01 §5.6): the client shows the person a form with the request and
 * its changes; only a form accepted within 2 minutes decides, as that person (OWNER or ADMIN of the store),
 * recorded `APPROVAL_DECIDED` with `metadata.via` MCP_ELICITATION. The decision is a person's, so it is not
 * an AI action; an approved request's execution counts when it runs. Every answer carries `approvalUrl`:
 * clients often announce forms and never show them.
 */
export async function confirmByElicitation(
  services: Services,
  server: Server,
  gateway: Gateway,
  input: { approvalId: string; decision: 'APPROVE' | 'REJECT'; reason?: string; storeId: string },
  connection: Connection,
  extra: ToolExtra,
): Promise<CallToolResult> {
  const traceId = newTraceId();
  const path = `/v1/approval-requests/${encodeURIComponent(input.approvalId)}`;
  const read = await gateway({ method: 'GET', path, storeId: input.storeId });
  if (read.status !== 200) return toolResult(read);
  const approval = read.body.data as { approvalId: string; status: string; approvalUrl: string; operationId: string; operationName: string; request: { method: string; path: string }; requestedBy: { name: string }; expiresAt: string; target: { type: string; id: string | null } | null };

  try {
    const decider = async () => deciderCtx(services, { ...(await connection.principalOf()), source: 'MCP' }, input.storeId, input.approvalId, connection.event(), traceId);
    // Nothing left to decide (decided or expired): the decision answers why at once, with no form to fill in.
    if (approval.status !== 'PENDING') return decided(await decideApproval(await decider(), input.approvalId, input.decision, { via: 'MCP_ELICITATION' }));
    const before = await decider();
    if (!server.getClientCapabilities()?.elicitation?.form) {
      return undecided(approval, 'ELICITATION_UNSUPPORTED', 'This client cannot show a confirmation form: a person approves or rejects at approvalUrl.');
    }
    const preview = await heldRequestPreview(before, input.approvalId);
    const askedAt = services.clock.now();
    // The window is the service's 2 minutes (a manual clock in tests and demos moves it too).
    const windowEnded = new AbortController();
    const watch = setInterval(() => {
      if (services.clock.now() - askedAt > CONFIRMATION_WINDOW_MS) windowEnded.abort();
    }, 200);
    let answer;
    try {
      answer = await server.elicitInput({
        mode: 'form',
        message: confirmationMessage(approval, preview.changes, input),
        requestedSchema: {
          type: 'object',
          properties: {
            decision: { type: 'string', title: '결정', enum: ['APPROVE', 'REJECT'], enumNames: ['승인', '거절'], default: input.decision },
            reason: { type: 'string', title: '사유 (선택)', maxLength: 500 },
          },
          required: ['decision'],
        },
      }, { timeout: CONFIRMATION_WINDOW_MS, signal: AbortSignal.any([extra.signal, windowEnded.signal]), relatedRequestId: extra.requestId });
    } catch {
      return undecided(approval, 'NO_ANSWER', 'No answer within 2 minutes: nothing changed. A person may still decide at approvalUrl.');
    } finally {
      clearInterval(watch);
    }
    if (services.clock.now() - askedAt > CONFIRMATION_WINDOW_MS) {
      return undecided(approval, 'CONFIRMATION_EXPIRED', 'The form was answered after its 2 minutes: nothing changed. Ask again, or decide at approvalUrl.');
    }
    if (answer.action !== 'accept') {
      return undecided(approval, answer.action === 'decline' ? 'DECLINED' : 'CANCELLED', `The person ${answer.action === 'decline' ? 'declined' : 'closed'} the form: nothing changed.`);
    }
    const choice = answer.content?.decision === 'REJECT' ? 'REJECT' : 'APPROVE';
    const reason = typeof answer.content?.reason === 'string' && answer.content.reason !== '' ? answer.content.reason : input.reason;
    return decided(await decideApproval(await decider(), input.approvalId, choice, { via: 'MCP_ELICITATION', ...(reason ? { reason } : {}) }));
  } catch (error) {
    const err = toApiError(error, traceId);
    const out = errorOutgoing(err, traceId, `${services.config.origin}/docs/errors`);
    return toolResult({ status: out.status, body: JSON.parse(out.body) });
  }
}

function decided(approval: { approvalUrl: string; status: string }): CallToolResult {
  const data = { decided: true, outcome: approval.status, approvalUrl: approval.approvalUrl, approval };
  return { content: [{ type: 'text', text: JSON.stringify(data) }], _meta: { status: 200, code: 'OK' } };
}

function confirmationMessage(
  approval: { operationId: string; operationName: string; request: { method: string; path: string }; requestedBy: { name: string }; expiresAt: string; target: { type: string; id: string | null } | null },
  changes: { field: string; before: unknown; after: unknown }[],
  input: { decision: string; reason?: string },
) {
  const lines = [
    `AI 에이전트(${approval.requestedBy.name})의 작업 승인 요청`,
    `작업: ${approval.operationName} (${approval.operationId})`,
    `요청: ${approval.request.method} ${approval.request.path}`,
    ...(approval.target ? [`대상: ${approval.target.type} ${approval.target.id ?? ''}`.trimEnd()] : []),
    ...(changes.length ? ['변경:', ...changes.map((c) => `- ${c.field}: ${JSON.stringify(c.before)} → ${JSON.stringify(c.after)}`)] : []),
    `만료: ${approval.expiresAt}`,
    `에이전트가 제안한 결정: ${input.decision}${input.reason ? ` (${input.reason})` : ''}`,
    '2분 안에 결정하세요.',
  ];
  return lines.join('\n');
}
