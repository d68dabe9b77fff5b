import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheRoot, withSourceLock } from '../../src/sources/cache.js';
import { Sandbox } from './repos.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = new Sandbox();
});
afterEach(async () => sandbox.dispose());

describe('the source directory lock', () => {
  it('lets one holder in at a time', async () => {
    const source = sandbox.path('cache', 'git', 'x');
    const events: string[] = [];
    const hold = (name: string) => withSourceLock(source, async () => {
      events.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      events.push(`${name} out`);
    });
    await Promise.all([hold('a'), hold('b'), hold('c')]);
    for (let i = 0; i < events.length; i += 2) {
      expect(events[i].replace(' in', '')).toBe(events[i + 1].replace(' out', ''));
    }
    expect(existsSync(join(source, '.lock.pid'))).toBe(false);
  });

  it('breaks the lock of a process that died holding it', async () => {
    const source = sandbox.path('cache', 'git', 'y');
    await mkdir(source, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    await writeFile(join(source, '.lock.pid'), `${dead}@${hostname()}`);
    expect(await withSourceLock(source, async () => 'entered', { timeoutMs: 5000 })).toBe('entered');
  });

  it('gives up on a live holder after the timeout, naming it', async () => {
    const source = sandbox.path('cache', 'git', 'z');
    await mkdir(source, { recursive: true });
    await writeFile(join(source, '.lock.pid'), `${process.pid}@${hostname()}`);
    await expect(withSourceLock(source, async () => 'entered', { timeoutMs: 100 })).rejects.toThrow(`locked by ${process.pid}@`);
  });
});

describe('cacheRoot', () => {
  it('is $PACKAGE_SDK_CACHE, else $XDG_CACHE_HOME/package-sdk, else ~/.cache/package-sdk', () => {
    expect(cacheRoot({ PACKAGE_SDK_CACHE: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(cacheRoot({ PACKAGE_SDK_CACHE: '', XDG_CACHE_HOME: '/x' })).toBe('/x/package-sdk');
    expect(cacheRoot({})).toMatch(/\.cache\/package-sdk$/);
  });
});
