/** Flow notification payload (spec: name, orderId, orderItemIds, flowId, flowVersion, state, params). */
interface FlowNotification {
  name: string;
  orderId: string;
  orderItemIds: string[];
  flowId: string;
  flowVersion: number;
  state: string;
  params: { message: string | null; urgent: boolean | null };
}

/** Delivered at least once: the same invocation may arrive again, so the work is keyed by order item. */
export default async function sendProof(n: FlowNotification, ctx: SvcContext) {
  for (const orderItemId of n.orderItemIds) {
    const key = `proof:${orderItemId}`;
    if (await storage.get(key)) continue;
    await storage.set(key, { sentAt: new Date().toISOString(), message: n.params.message });
    console.log(`proof sent for ${orderItemId} (${n.params.urgent ? 'urgent' : 'normal'})`);
    // When the buyer approves, the app moves the item on with its own flow event:
    // await api('POST', `/v1/order-items/${orderItemId}/events/app.${ctx.app.handle}.PROOF_APPROVED`, { input: {} });
  }
  return { handled: n.orderItemIds.length };
}
