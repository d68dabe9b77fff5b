/**
 * A copy of this checkout as its repository holds it — the files git tracks or would track, as they are in the
 * working tree, without node_modules or the build — for tests that install package-sdk the way its users do.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export function copyCheckout(target: string): void {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
  for (const file of files) if (file && file !== 'node_modules' && existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(target, file));
}

/** The copy as a git repository with one commit tagged `tag`: what `repo:` and `rev:` (or `uses: …@tag`) name. */
export function checkoutRepository(target: string, tag: string): void {
  copyCheckout(target);
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: target, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('-c', 'user.email=release@example.com', '-c', 'user.name=Release', 'commit', '-q', '-m', 'release');
  git('tag', tag);
}
