import { describe, expect, it } from 'vitest';
import { AttemptAbort } from '../../../lib/worker/attempt-abort.js';

describe('AttemptAbort', () => {
  it('gives a signal read after the abort the same reason, already aborted', () => {
    // prepare
    const abort = new AttemptAbort();
    const reason = new Error('superseded');

    // act
    abort.abort(reason);

    // assert
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
    expect(() => abort.throwIfAborted()).toThrow(reason);
  });

  it('aborts a signal read before the abort, and keeps the first reason', () => {
    // prepare
    const abort = new AttemptAbort();
    const signal = abort.signal;
    const first = new Error('lease in doubt');

    // act
    abort.abort(first);
    abort.abort(new Error('later'));

    // assert
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(first);
    expect(() => abort.throwIfAborted()).toThrow(first);
  });

  it('stops waiting for the work at the abort, with the reason, while the work goes on', async () => {
    // prepare
    const abort = new AttemptAbort();
    let finish: (value: string) => void = () => {};
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    const reason = new Error('ownership lost');

    // act
    const raced = abort.race(work);
    abort.abort(reason);

    // assert
    await expect(raced).rejects.toBe(reason);
    finish('late');
    await expect(work).resolves.toBe('late');
  });

  it('settles with the work when no abort comes, and rejects at once when already aborted', async () => {
    // prepare
    const abort = new AttemptAbort();

    // act + assert
    await expect(abort.race(Promise.resolve(7))).resolves.toBe(7);
    await expect(abort.race(Promise.reject(new Error('job failed')))).rejects.toThrow('job failed');
    abort.abort(undefined);
    await expect(abort.race(Promise.resolve(8))).rejects.toMatchObject({ name: 'AbortError' });
    expect(abort.aborted).toBe(true);
  });
});
