import { describe, expect, it } from 'vitest';
import { loadOnFirstUse } from '../../../lib/internal/first-use.js';

describe('loadOnFirstUse (pay for what you use)', () => {
  it('loads nothing until the first call, then hands every call the same load', async () => {
    let loads = 0;
    const load = loadOnFirstUse(async () => {
      loads += 1;
      return { module: loads };
    });
    expect(loads).toBe(0);

    const [first, second] = await Promise.all([load(), load()]);
    const third = await load();

    expect(loads).toBe(1);
    expect(second).toBe(first);
    expect(third).toBe(first);
  });

  it('a failed load rejects its callers and is retried by the next call', async () => {
    let loads = 0;
    const load = loadOnFirstUse(async () => {
      loads += 1;
      if (loads === 1) throw new Error('module missing');
      return 'loaded';
    });

    await expect(load()).rejects.toThrow('module missing');
    await expect(load()).resolves.toBe('loaded');
    expect(loads).toBe(2);
  });
});
