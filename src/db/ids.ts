import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * Ids are made on every request (request id, trace id, audit record): one system call per id showed
 * up at 7% of a request, so random bytes come from a pool refilled 4 KiB at a time.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;
/** Reserves `n` random bytes of the pool and returns where they start. */
function takeRandom(n: number): number {
  if (poolOffset + n > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += n;
  return poolOffset - n;
}

/** Random hex, for trace ids. */
export function newHex(bytes: number): string {
  const start = takeRandom(bytes);
  return pool.toString('hex', start, start + bytes);
}

/** The time part of the last id's millisecond: ids come in bursts within one. */
let lastMs = -1;
let lastTime = '';
function timePart(nowMs: number): string {
  if (nowMs === lastMs) return lastTime;
  let time = '';
  let t = nowMs;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  lastMs = nowMs;
  return (lastTime = time);
}

/**
 * Ids are `<prefix>_<time><random>` in Crockford base32: they sort by creation time (cursor paging and
 * "newest first" need no extra column) and name their kind in logs. Clients must not parse them.
 */
export function newId(prefix: string, nowMs = Date.now()): string {
  const time = timePart(nowMs);
  const start = takeRandom(10);
  let rand = '';
  for (let i = start; i < start + 10; i++) rand += ALPHABET[pool[i] % 32];
  return `${prefix}_${time}${rand}`;
}

/** A secret of `bytes` random bytes in URL-safe base64, optionally prefixed (never from the shared pool). */
export function newSecret(bytes = 32, prefix = ''): string {
  return prefix + randomBytes(bytes).toString('base64url');
}
