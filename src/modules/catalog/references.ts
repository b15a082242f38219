// Ids a product or category names that other modules own, checked by asking their owner.
import type { Db } from '../../db/client.js';
import { ask } from '../../server/hooks.js';

/** A flow id a product or category names must be a flow of the store (404 FLOW_NOT_FOUND, asked of flows). */
export async function requireFlowId(db: Db, storeId: string, flowId: string | null | undefined) {
  if (flowId) await ask(db, 'requireFlowOfStore')(db, storeId, flowId);
}
