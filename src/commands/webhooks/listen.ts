import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';
import { ApiCallError } from '../../client/api-client.js';
import { listenSecret } from '../../client/config.js';
import { eventList, eventsFlag } from '../../cli/webhooks.js';
import { STREAM_EVENT_TYPES } from '../../kernel/event-types.js';

const RECONNECT_MS = 1000;

export default class WebhooksListen extends ApiCommand<typeof WebhooksListen> {
  static override summary = "Stream the store's events to this terminal and forward each, signed, to a local URL (like `stripe listen`)";
  static override description = [
    'Events arrive over GET /v1/events/stream (server-sent events), so no public URL or subscription is needed.',
    'Each forwarded request is built like a webhook delivery (same body and Svc-* headers) and signed with a secret printed at start; verify with it as with a subscription secret.',
    'The secret is kept in the config dir, one per profile and store, so it stays the same across starts (--print-secret prints it). With --json the first line is {"event":"ready",…,"secret":…} once the stream is open.',
  ].join('\n');
  static override examples = [
    '<%= config.bin %> webhooks listen --forward-to http://localhost:3000/hook',
    '<%= config.bin %> webhooks listen --forward-to http://localhost:3000/hook --events ORDER.PAID,CLAIM.COMPLETED',
    '<%= config.bin %> webhooks listen --events "order.*,APP.*"',
    '<%= config.bin %> webhooks listen --json   # a ready line, then one JSON line per event',
    '<%= config.bin %> webhooks listen --print-secret',
  ];
  static override flags = {
    'forward-to': Flags.string({ description: 'Local receiver URL to POST each event to' }),
    events: eventsFlag(false, STREAM_EVENT_TYPES),
    'print-secret': Flags.boolean({ description: 'Print the signing secret of this profile and store, and exit' }),
  };

  async run() {
    const { signatureHeader } = await import('../../kernel/webhook-signature.js');
    const { newSecret } = await import('../../db/ids.js');
    const forwardTo = this.flags['forward-to'];
    if (forwardTo && !/^https?:\/\//.test(forwardTo)) throw new UsageError('--forward-to must be an http(s) URL');
    const types = this.flags.events === undefined ? null : eventList(this.flags.events, STREAM_EVENT_TYPES).join(',');
    const storeId = await this.storeId();
    const secret = await listenSecret(this.profileName, storeId, () => newSecret(32, 'whsec_'));
    if (this.flags['print-secret']) return this.log(this.flags.json ? JSON.stringify({ secret }) : secret);
    if (!this.flags.json) {
      this.log(`Ready. Listening to store ${storeId}${types ? ` for ${types}` : ''}${forwardTo ? `, forwarding to ${forwardTo}` : ''}.`);
      this.log(`Signing secret of this profile and store (verify forwarded requests with it): ${secret}`);
      this.log('Ctrl-C to stop.');
    }
    // With --json, scripts learn from this line that the stream is open (events from now on arrive) and the secret.
    let announced = !this.flags.json;

    let lastEventId: string | undefined;
    let stopped = false;
    const controller = new AbortController();
    process.once('SIGINT', () => {
      stopped = true;
      controller.abort();
    });

    while (!stopped) {
      try {
        const response = await this.open(storeId, types, lastEventId, controller.signal);
        if (!announced) {
          announced = true;
          this.log(JSON.stringify({ event: 'ready', storeId, events: types?.split(',') ?? null, forwardTo: forwardTo ?? null, secret }));
        }
        for await (const message of sseMessages(response.body!)) {
          lastEventId = message.id;
          const body = message.data;
          const event = JSON.parse(body) as { id: string; type: string };
          const result = forwardTo ? await forward(forwardTo, body, event, signatureHeader([secret], Math.floor(Date.now() / 1000), body)) : null;
          if (this.flags.json) this.log(JSON.stringify({ event: JSON.parse(body), forward: result }));
          else {
            const outcome = result === null ? '' : result.error ? `  → ✗ ${result.error} (${result.timeMs} ms)` : `  → ${result.status} (${result.timeMs} ms)`;
            this.log(`${new Date().toISOString().slice(11, 19)}  ${event.type.padEnd(26)} ${event.id}${outcome}`);
          }
        }
      } catch (error) {
        if (stopped) break;
        if (error instanceof ApiCallError) throw error;
        if (!this.flags.json) this.logToStderr(`connection lost (${(error as Error).message}); reconnecting…`);
      }
      if (!stopped) await new Promise((r) => setTimeout(r, RECONNECT_MS));
    }
  }

  /** Opens the stream with the same credentials every API call uses; resumes after `lastEventId`. */
  private async open(storeId: string, types: string | null, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    return this.client.stream('/v1/events/stream', {
      storeId,
      query: { types: types ?? undefined },
      headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal,
    });
  }
}

/** Server-sent events of spec WHATWG HTML §9.2 as far as the service sends them: `id`, `event`, one `data` line. */
async function* sseMessages(stream: ReadableStream<Uint8Array>): AsyncGenerator<{ id: string; event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const fields = new Map<string, string>();
      for (const line of buffer.slice(0, end).split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
      }
      buffer = buffer.slice(end + 2);
      if (fields.has('data')) yield { id: fields.get('id') ?? '', event: fields.get('event') ?? 'message', data: fields.get('data')! };
    }
  }
}

/** POSTs one event the way a webhook delivery would; never throws. */
async function forward(url: string, body: string, event: { id: string; type: string }, signature: string) {
  const started = performance.now();
  const timeMs = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svc-webhooks-listen',
        'svc-signature': signature,
        'svc-event-id': event.id,
        'svc-event-type': event.type,
        'svc-delivery-id': `listen_${event.id}`,
      },
      body,
    });
    await response.arrayBuffer();
    return { status: response.status, timeMs: timeMs(), error: null };
  } catch (error) {
    return { status: null, timeMs: timeMs(), error: (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message };
  }
}
