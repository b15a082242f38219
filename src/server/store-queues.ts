/**
 * Work queued per store: each piece starts once the one before it under the same store settled, whether it
 * succeeded or failed. A store with nothing queued holds no entry.
 */
export class StoreQueues {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(storeId: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(storeId);
    const result = before ? before.then(work) : work();
    const tail = result.then(settled, settled);
    this.tails.set(storeId, tail);
    void tail.then(() => {
      if (this.tails.get(storeId) === tail) this.tails.delete(storeId);
    });
    return result;
  }
}

const settled = () => undefined;
