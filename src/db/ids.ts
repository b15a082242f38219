import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Ids are `<prefix>_<time><random>` in Crockford base32: they sort by creation time (cursor paging and
 * "newest first" need no extra column) and name their kind in logs. Clients must not parse them.
 */
/**
 * Ids are made on every request (request id, trace id, audit record): one system call per id showed
 * up at 7% of a request, so random bytes come from a pool refilled 4 KiB at a time.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
function pooledRandom(n: number): Buffer {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += n;
  return pool.subarray(poolOffset - n, poolOffset);
}

/** Random hex, for trace ids. */
export const newHex = (bytes: number) => pooledRandom(bytes).toString('hex');

export function newId(prefix: string, nowMs = Date.now()): string {
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = pooledRandom(10);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 32];
  return `${prefix}_${time}${rand}`;
}

/** A secret of `bytes` random bytes in URL-safe base64, optionally prefixed (never from the shared pool). */
export function newSecret(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}
