import type { H3Event } from 'h3';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { buildCtx } from '../../server/pipeline.js';
import type { StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import type { Principal } from '../../kernel/identity.js';
import { resolveStore } from '../stores/index.js';

/**
 * The context of a person deciding an approval request outside the approval API — the approval page, with
 * their own store-platform login, or an MCP conversation's form answered with the code that page showed that
 * login: OWNER or ADMIN of the store, as the API demands. An agent's token is refused as the API refuses it
 * (spec 01 §5.6): it is never taken for the person behind it.
 */
export async function deciderCtx(
  services: Services,
  principal: Principal,
  storeId: string,
  approvalId: string,
  event: H3Event,
  traceId: string,
): Promise<StoreCtx> {
  if (principal.agent) throw fail(403, 'AGENT_OPERATION_DENIED');
  const store = await resolveStore(services, principal, storeId);
  if (store.role !== 'OWNER' && store.role !== 'ADMIN') throw fail(403, 'INSUFFICIENT_ROLE', { requiredRole: ['OWNER', 'ADMIN'], actualRole: store.role });
  const op = services.operations.find((o) => o.operationId === 'approveApprovalRequest')!;
  return buildCtx(services, op, { params: { approvalId }, query: {}, body: '' }, { principal, store, requestId: newId('req'), traceId, event }) as StoreCtx;
}
