/** A public route's request; answer `{ status, headers, body }` (a non-string body is sent as JSON). */
interface HookRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

/** One handler per `http.public` entry of manifest.json, served at /apps/<handle>/hooks/<installationId>/… without login. */
export default {
  'POST /webhook': async (req: HookRequest) => {
    const event = JSON.parse(req.body || '{}') as { orderId?: string; status?: string };
    if (!event.orderId) return { status: 400, body: { error: 'orderId is required' } };
    await storage.set(`status:${event.orderId}`, event.status ?? 'RECEIVED');
    return { status: 202, body: { accepted: true } };
  },
  'GET /status/:orderId': async (req: HookRequest) => {
    const status = await storage.get<string>(`status:${req.params.orderId}`);
    return status ? { body: { orderId: req.params.orderId, status } } : { status: 404, body: { error: 'unknown order' } };
  },
};
