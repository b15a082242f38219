import { createHmac, timingSafeEqual } from 'node:crypto';

/** `Svc-Signature` value of spec 01 §6.3: one `v1` per valid secret, newest first. */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, body: string | Uint8Array): string {
  return [`t=${timestampSeconds}`, ...secrets.map((s) => `v1=${digest(s, timestampSeconds, body).toString('hex')}`)].join(',');
}

function digest(secret: string, t: number | string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest();
}

export interface VerifyWebhookInput {
  /** The subscription secret (`whsec_…`), or several while one is being rotated in. */
  secret: string | readonly string[];
  /** The `Svc-Signature` header as received. */
  header: string | null | undefined;
  /** The request body exactly as received, before any parsing. */
  body: string | Uint8Array;
  /** Largest accepted distance between `t` and now; default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time (ms or Date); default now. */
  now?: number | Date;
}

export type VerifyWebhookResult =
  | { valid: true; timestamp: number }
  | { valid: false; reason: 'MALFORMED_HEADER' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'NO_MATCHING_SIGNATURE'; timestamp: number | null };

/**
 * Checks a webhook request the way spec 01 §6.3 tells receivers to: timestamp within tolerance, then
 * the HMAC-SHA256 of `{t}.{raw body}` against every `v1`, compared in constant time on the raw bytes.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult {
  const parts = (input.header ?? '').split(',').map((p) => p.trim().split('=', 2) as [string, string | undefined]);
  const tValue = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/i.test(v)).map(([, v]) => Buffer.from(v!, 'hex'));
  if (!tValue || !/^\d+$/.test(tValue) || signatures.length === 0) return { valid: false, reason: 'MALFORMED_HEADER', timestamp: null };
  const timestamp = Number(tValue);
  const nowMs = input.now === undefined ? Date.now() : Number(input.now);
  if (Math.abs(nowMs / 1000 - timestamp) > (input.toleranceSeconds ?? 300)) return { valid: false, reason: 'TIMESTAMP_OUT_OF_TOLERANCE', timestamp };
  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  // Every pair is compared, without stopping at the first match, so timing says nothing about which matched.
  let matched = false;
  for (const secret of secrets) {
    const expected = digest(secret, tValue, input.body);
    for (const given of signatures) matched = timingSafeEqual(expected, given) || matched;
  }
  return matched ? { valid: true, timestamp } : { valid: false, reason: 'NO_MATCHING_SIGNATURE', timestamp };
}
