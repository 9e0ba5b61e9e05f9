/**
 * Runs tasks one at a time per key and concurrently across keys: records of one batch run in parallel,
 * but never the same identity twice at once.
 */
class KeyedSerializer {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` after every earlier task with the same key has settled. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    // The usual case, nothing queued for this key: start now rather than one promise hop later.
    const next = previous === undefined ? startNow(task) : previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Keys with work queued or running (bounded by the batch; empty when idle). */
  get size(): number {
    return this.tails.size;
  }
}

/** Runs `task` at once; a synchronous throw becomes a rejection, as it would inside `then`. */
function startNow<T>(task: () => Promise<T>): Promise<T> {
  try {
    return task();
  } catch (error) {
    return Promise.reject(error);
  }
}

export { KeyedSerializer };
