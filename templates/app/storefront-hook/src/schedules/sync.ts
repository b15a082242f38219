/** Runs every hour per installation (manifest `schedules.sync`); only hosts in `network.hosts` are reachable. */
export default async function sync(_input: { scheduledAt: string }, ctx: SvcContext) {
  const res = await fetch('https://api.example.com/v1/updates', { headers: { authorization: `Bearer ${ctx.settings.partnerKey}` } });
  if (!res.ok) throw new Error(`partner API answered ${res.status}`);
  const updates = await res.json<{ orderId: string; status: string }[]>();
  for (const u of updates) await storage.set(`status:${u.orderId}`, u.status);
  return { synced: updates.length };
}
