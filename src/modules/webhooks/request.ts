import { signatureHeader } from '../../kernel/webhook-signature.js';
import type { webhooks } from './schema.js';

/** The signed request one delivery attempt sends. */

const USER_AGENT = 'svc-webhooks/1.0 (+https://svc.dev/docs/webhooks)';

type Webhook = typeof webhooks.$inferSelect;

/** Secrets that sign right now, newest first: the old one only during its 24-hour overlap. */
export function signingSecrets(w: Pick<Webhook, 'secret' | 'oldSecret' | 'oldSecretExpiresAt'>, now: number): string[] {
  return w.oldSecret && w.oldSecretExpiresAt !== null && w.oldSecretExpiresAt > now ? [w.secret, w.oldSecret] : [w.secret];
}

/** The webhook request of spec 01 §6.1: wire headers, and the headers as delivery records show them. */
export function buildRequest(body: string, event: { id: string; type: string }, deliveryId: string, secrets: string[], now: number) {
  const signature = signatureHeader(secrets, Math.floor(now / 1000), body);
  const shown: [string, string | null][] = [
    ['Content-Type', 'application/json'],
    ['User-Agent', USER_AGENT],
    ['Svc-Signature', null],
    ['Svc-Event-Id', event.id],
    ['Svc-Event-Type', event.type],
    ['Svc-Delivery-Id', deliveryId],
    ['Content-Length', String(Buffer.byteLength(body))],
  ];
  const headers = Object.fromEntries(shown.map(([name, value]) => [name, value ?? signature]));
  return { headers, requestHeaders: shown.map(([name, value]) => ({ name, value })) };
}
