/** What the fenced helpers and the lease guard consult before they start anything: an AbortSignal fits. */
interface AbortCheck {
  readonly aborted: boolean;
  /** Throws the abort reason once aborted. */
  throwIfAborted(): void;
}

/**
 * The abort switch of one attempt (lost ownership, lease doubt, a fence rejection). The AbortSignal a job
 * sees is created only when the job reads it, aborted with the same reason: most jobs never read it, and
 * an AbortController with its event listeners is a measurable share of the runtime's cost per job.
 */
class AttemptAbort implements AbortCheck {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;
  private readonly waiters = new Set<(reason: unknown) => void>();

  get aborted(): boolean {
    return this.abortedWith !== undefined;
  }

  /** The job's signal: aborted with the attempt's reason, whether read before or after the abort. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedWith !== undefined) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }

  /** Aborts the attempt once; later calls keep the first reason. */
  abort(reason: unknown): void {
    if (this.abortedWith !== undefined) return;
    const settled = reason ?? new DOMException('The attempt was aborted', 'AbortError');
    this.abortedWith = { reason: settled };
    this.controller?.abort(settled);
    for (const reject of this.waiters) reject(settled);
    this.waiters.clear();
  }

  throwIfAborted(): void {
    if (this.abortedWith !== undefined) throw this.abortedWith.reason;
  }

  /** Settles with `work`, or rejects with the abort reason as soon as the attempt is aborted (work keeps running). */
  race<T>(work: Promise<T>): Promise<T> {
    if (this.abortedWith !== undefined) {
      work.catch(() => undefined);
      return Promise.reject(this.abortedWith.reason);
    }
    return new Promise<T>((resolve, reject) => {
      this.waiters.add(reject);
      work.then(
        (value) => {
          this.waiters.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.waiters.delete(reject);
          reject(error);
        },
      );
    });
  }
}

export { type AbortCheck, AttemptAbort };
