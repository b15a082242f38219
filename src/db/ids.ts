import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Ids are `<prefix>_<time><random>` in Crockford base32: they sort by creation time (cursor paging and
 * "newest first" need no extra column) and name their kind in logs. Clients must not parse them.
 */
export function newId(prefix: string, nowMs = Date.now()): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(10);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 32];
  return `${prefix}_${time}${rand}`;
}

/** A secret of `bytes` random bytes in URL-safe base64, optionally prefixed. */
export function newSecret(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}
