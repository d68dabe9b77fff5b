import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../src/json/bounded-cache.js';
import { compileRegex } from '../../src/cel/regex.js';
import { guardOf } from '../../src/process/guards.js';

describe('a bounded cache', () => {
  it('keeps at most its limit, forgetting the entry set longest ago', () => {
    const cache = new BoundedCache<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) cache.set(key, i);
    expect(['a', 'b', 'c', 'd'].map((key) => cache.get(key))).toEqual([undefined, 1, 2, 3]);
    expect(cache.size).toBe(3);
  });

  it('counts a key set again as new', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 3);
    cache.set('c', 4);
    expect(['a', 'b', 'c'].map((key) => cache.get(key))).toEqual([3, undefined, 4]);
  });

  it('gives what a cached call gives when its entry was forgotten', () => {
    // More patterns and guards than the caches hold: the first ones are worked out again, to the same answer.
    const first = compileRegex('^a0$');
    const guard = guardOf('stages.s0.completed && !stages.t0.active');
    for (let i = 1; i < 5000; i++) {
      compileRegex(`^a${i}$`);
      guardOf(`stages.s${i}.completed`);
    }
    const again = compileRegex('^a0$');
    expect(again).not.toBe(first);
    expect('regex' in again && again.regex.matches('a0')).toBe(true);
    expect(guardOf('stages.s0.completed && !stages.t0.active')).toEqual(guard);
  });
});
