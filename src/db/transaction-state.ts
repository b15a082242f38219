import type { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What both databases' transactions keep of one outermost transaction: whether it ended, and the work to
 * start once it committed. Work the transaction scheduled (a timer, a wake-up) still carries its
 * AsyncLocalStorage frame after it ended, and must then run outside it.
 */
export interface OutermostTransaction {
  ended: boolean;
  afterCommit: Map<unknown, () => void>;
}

export const newOutermost = (): OutermostTransaction => ({ ended: false, afterCommit: new Map() });

/** The transaction of the current work, unless it ended. */
export const openOutermost = (outermost: OutermostTransaction | undefined) => (outermost && !outermost.ended ? outermost : undefined);

/** On a later turn and outside every transaction of `frames`: work scheduled from inside one must not join it. */
export function later(frames: AsyncLocalStorage<unknown>, then: () => void) {
  frames.exit(() => setImmediate(then));
}

/** `then` once `outermost` committed (once per `key`), or on a later turn when there is none. */
export function whenCommitted(frames: AsyncLocalStorage<unknown>, outermost: OutermostTransaction | undefined, then: () => void, key: unknown) {
  if (!openOutermost(outermost)) later(frames, then);
  else if (!outermost!.afterCommit.has(key)) outermost!.afterCommit.set(key, then);
}

/** The transaction committed: what waited for it starts. */
export function committed(frames: AsyncLocalStorage<unknown>, outermost: OutermostTransaction) {
  for (const then of outermost.afterCommit.values()) later(frames, then);
}

/**
 * At most `limit` transactions at once; a finished one hands its turn to the longest waiting, so none slips
 * in between. `take` answers at once (no promise) when a turn is free.
 */
export class Turns {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  take(): Promise<void> | undefined {
    if (this.taken < this.limit) {
      this.taken++;
      return undefined;
    }
    return new Promise<void>((turn) => this.waiting.push(turn));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.taken--;
  }
}
