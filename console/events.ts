/**
 * The store's live events (GET /v1/events/stream, server-sent events) read with fetch, so the access token
 * goes in the Authorization header as on every other call (EventSource cannot set one). Reconnects with
 * Last-Event-ID after a drop.
 */
import { apiStore } from './api.js';
import { accessToken } from './auth.js';

export interface StoreEvent {
  id: number;
  type: string;
  data: any;
}

export function subscribeEvents(onEvent: (event: StoreEvent) => void): () => void {
  const controller = new AbortController();
  let lastId: string | null = null;
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const token = await accessToken();
        const storeId = apiStore();
        if (!token || !storeId) return;
        const res = await fetch('/v1/events/stream', {
          headers: { authorization: `Bearer ${token}`, 'x-store-id': storeId, accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: controller.signal,
        });
        if (!res.ok || !res.body) return;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields: Record<string, string> = {};
            for (const line of message.split('\n')) {
              if (!line || line.startsWith(':')) continue;
              const colon = line.indexOf(':');
              const name = colon < 0 ? line : line.slice(0, colon);
              fields[name] = (fields[name] ? `${fields[name]}\n` : '') + (colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, ''));
            }
            if (fields.id) lastId = fields.id;
            if (fields.event && fields.data) {
              let parsed: unknown = fields.data;
              try {
                parsed = JSON.parse(fields.data);
              } catch {
                // Kept as text.
              }
              onEvent({ id: Number(fields.id), type: fields.event, data: parsed });
            }
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      await new Promise((ok) => setTimeout(ok, 2000));
    }
  };
  void run();
  return () => controller.abort();
}
