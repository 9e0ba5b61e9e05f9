import { describe, expect, it } from 'vitest';
import { builtOnce, memoizeBounded } from '../../../lib/internal/memoize.js';

describe('memoizeBounded', () => {
  it('computes each input once while it is held, and returns the same value', () => {
    const calls: string[] = [];
    const upper = memoizeBounded((input) => {
      calls.push(input);
      return input.toUpperCase();
    }, 4);

    expect([upper('a'), upper('b'), upper('a'), upper('b')]).toEqual(['A', 'B', 'A', 'B']);
    expect(calls).toEqual(['a', 'b']);
  });

  it('never holds more than `size` results: a full cache starts over, and values stay correct', () => {
    const calls: string[] = [];
    const length = memoizeBounded((input) => {
      calls.push(input);
      return input.length;
    }, 3);

    for (const input of ['a', 'bb', 'ccc', 'dddd']) length(input);
    // 'dddd' found the cache full and cleared it, so 'a' is computed again; 'dddd' is still held.
    expect(length('a')).toBe(1);
    expect(length('dddd')).toBe(4);
    expect(calls).toEqual(['a', 'bb', 'ccc', 'dddd', 'a']);
  });
});

describe('builtOnce', () => {
  it('builds on the first call, not before, and returns that same value to every later call', () => {
    let builds = 0;
    const schema = builtOnce(() => {
      builds += 1;
      return { built: builds };
    });

    expect(builds).toBe(0);
    const first = schema();
    expect(schema()).toBe(first);
    expect(builds).toBe(1);
  });

  it('a build that throws is tried again by the next call', () => {
    let attempts = 0;
    const value = builtOnce(() => {
      attempts += 1;
      if (attempts === 1) throw new Error('first build fails');
      return 'built';
    });

    expect(() => value()).toThrow('first build fails');
    expect(value()).toBe('built');
    expect(attempts).toBe(2);
  });
});
