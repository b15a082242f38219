import type { H3Event } from 'h3';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import { buildCtx, resolveStore } from '../../server/pipeline.js';
import type { StoreCtx } from '../../server/registry.js';
import type { Services } from '../../server/services.js';
import type { Principal } from '../accounts/principal.js';

/**
 * The context of a person deciding an approval request outside the approval API (the approval page, the
 * confirmation form of a remote MCP conversation): OWNER or ADMIN of the store, as the API demands, and
 * acting as a person — never as the agent whose connection may have carried the form.
 */
export async function deciderCtx(services: Services, principal: Principal, storeId: string, approvalId: string, event: H3Event, traceId: string): Promise<StoreCtx> {
  const person: Principal = principal.agent ? { ...principal, agent: false, actorType: 'USER' } : principal;
  const store = await resolveStore(services, person, storeId);
  if (store.role !== 'OWNER' && store.role !== 'ADMIN') throw fail(403, 'INSUFFICIENT_ROLE');
  const op = services.operations.find((o) => o.operationId === 'approveApprovalRequest')!;
  return buildCtx(services, op, { params: { approvalId }, query: {}, body: '' }, { principal: person, store, requestId: newId('req'), traceId, event }) as StoreCtx;
}
