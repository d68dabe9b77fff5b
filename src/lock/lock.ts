import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadInstallationFile, sourcePath } from '../load/installation.js';
import { loadTargets } from '../load/targets.js';
import { isError, type Finding } from '../model/finding.js';
import type { Installation } from '../model/installation.js';
import type { Package } from '../model/package.js';
import { cacheRoot, exists } from '../sources/cache.js';
import { contentHash } from '../sources/content-hash.js';
import type { SourceOptions } from '../sources/git-source.js';
import { lineDiff } from './line-diff.js';
import {
  isGitLockSource, LockFileError, lockDocument, lockFileFor, readLock, serializeLock, writeLock,
  type LockDocument, type LockEntry, type LockSource,
} from '../sources/lock-file.js';
import { finding, pinningResolver, type PinnedCommit } from '../load/source-resolver.js';
import type { GitSource } from '../sources/source.js';

/**
 * `package-sdk lock` (compat §2.5): resolve the installation with every git tag fetched and extracted
 * afresh, hash every package, and write `packages.lock` — or, with `check`, only say whether the file on
 * disk is what `lock` would write.
 *
 * | code                      | severity | when                                                                 |
 * |---------------------------|----------|----------------------------------------------------------------------|
 * | lock_invalid              | error    | the existing packages.lock is not JSON or not package-sdk.lock/v1     |
 * | lock_not_written          | error    | the new document fails the lock schema (e.g. a version not x.y.z)     |
 * | lock_outdated             | error    | `--check`: packages.lock differs from what lock would write           |
 * | package_version_missing   | error    | a manifest has no spec.version                                        |
 * | checkout_changed          | error    | a git checkout changed while lock ran                                  |
 * | tag_moved                 | warning  | a tag points elsewhere than in the previous lock (the new commit is locked) |
 * (plus the codes of the installation and of git sources: see load/installation.ts and load/source-resolver.ts)
 */

export interface LockOptions {
  /** The installation file; the lock is written next to it. */
  install: string;
  /** Compare with the existing lock instead of writing it. */
  check?: boolean;
  cacheDir?: string;
  /** Progress: called before a git source is fetched. */
  onFetch?: SourceOptions['onFetch'];
  /** Called when another run holds a source's cache directory. */
  onWait?: SourceOptions['onWait'];
}

export interface LockReport {
  lockFile: string;
  /** written: the file was (re)written; current / outdated: `check` compared it; failed: nothing written. */
  status: 'written' | 'current' | 'outdated' | 'failed';
  document?: LockDocument;
  /** `check` and outdated: the lines that would change (`-` on disk, `+` new). */
  diff?: string;
  findings: Finding[];
}

export async function lock(options: LockOptions): Promise<LockReport> {
  const lockFile = lockFileFor(options.install);
  const findings: Finding[] = [];
  const failed = (): LockReport => ({ lockFile, status: 'failed', findings });
  let previous: LockDocument | undefined;
  try {
    previous = await readLock(lockFile);
  } catch (error) {
    if (!(error instanceof LockFileError)) throw error;
    findings.push(finding({ file: lockFile, path: '', line: 1, column: 1 }, error.code, 'error', error.message,
      'packages.lock is written by package-sdk lock only: delete it and lock again'));
    return failed();
  }
  const { resolve, pinned, prefetch } = pinningResolver({
    cacheDir: options.cacheDir ?? cacheRoot(), onFetch: options.onFetch, onWait: options.onWait,
  });
  prefetch(gitSources((await loadInstallationFile(options.install, { cwd: process.cwd() })).installation));
  const workspace = await loadTargets({ install: options.install, resolveGitSource: resolve });
  findings.push(...workspace.findings);
  const installation = workspace.installation;
  if (findings.some(isError) || !installation) return failed();

  const entries: LockEntry[] = [];
  for (const pkg of workspace.packages) {
    const entry = await entryOf(pkg, lockSourceOf(pkg, installation), pinned.get(pkg.key), findings);
    if (entry) entries.push(entry);
  }
  findings.push(...movedTags(entries, previous, lockFile));
  if (findings.some(isError)) return failed();

  const document = lockDocument(installation.key, entries);
  if (options.check) return compareWithDisk(lockFile, document, findings);
  try {
    await writeLock(lockFile, document);
  } catch (error) {
    if (!(error instanceof LockFileError)) throw error;
    findings.push(finding({ file: lockFile, path: '', line: 1, column: 1 }, error.code, 'error', error.message));
    return failed();
  }
  return { lockFile, status: 'written', document, findings };
}

/**
 * The source a package gets in the lock (and so in `lockHash`): the installation's for its entries, the
 * path from the installation file's directory for a package found through a `requires`.
 */
export function lockSourceOf(pkg: Package, installation: Installation): LockSource {
  return pkg.source ?? { path: sourcePath(installation.dir, pkg.dir) };
}

async function entryOf(
  pkg: Package, source: LockSource, pin: PinnedCommit | undefined, findings: Finding[],
): Promise<LockEntry | undefined> {
  const place = { file: pkg.manifest.file, path: '/spec/version', ...pkg.manifest.locate('/spec/version') };
  if (pkg.version === undefined) {
    findings.push(finding(place, 'package_version_missing', 'error', `package '${pkg.key}': no spec.version`,
      'the lock pins a version: add spec.version (x.y.z) to package.yaml'));
    return undefined;
  }
  const hash = await contentHash(pkg.dir);
  if (pin && (hash !== pin.contentHash || !(await exists(join(pkg.dir, 'package.yaml'))))) {
    findings.push(finding(place, 'checkout_changed', 'error', `lock not written: checkout of package '${pkg.key}' ` +
      `changed while locking (${hash.slice(0, 19)}… instead of ${pin.contentHash.slice(0, 19)}…)`, 'run package-sdk lock again'));
    return undefined;
  }
  return { key: pkg.key, version: pkg.version, source, ...(pin ? { commit: pin.commit } : {}), contentHash: hash };
}

/** Re-pinning is what `lock` is for, but a tag that moved under the same name deserves a look. */
function movedTags(entries: readonly LockEntry[], previous: LockDocument | undefined, lockFile: string): Finding[] {
  const before = new Map((previous?.packages ?? []).map((entry) => [entry.key, entry]));
  return entries.flatMap((entry) => {
    const old = before.get(entry.key);
    if (!old?.commit || !entry.commit || old.commit === entry.commit) return [];
    if (!isGitLockSource(old.source) || !isGitLockSource(entry.source) || old.source.ref !== entry.source.ref) return [];
    return [finding({ file: lockFile, path: '', line: 1, column: 1 }, 'tag_moved', 'warning',
      `${entry.key}: ${entry.source.ref} now points to ${entry.commit.slice(0, 12)} (previous lock had ` +
      `${old.commit.slice(0, 12)}) — the tag was moved`, 'check the source: a published tag should not move')];
  });
}

async function compareWithDisk(lockFile: string, document: LockDocument, findings: Finding[]): Promise<LockReport> {
  const wanted = serializeLock(document);
  const onDisk = await readFile(lockFile, 'utf8').catch(() => '');
  if (onDisk === wanted) return { lockFile, status: 'current', document, findings };
  const diff = lineDiff(onDisk, wanted);
  findings.push(finding({ file: lockFile, path: '', line: 1, column: 1 }, 'lock_outdated', 'error',
    onDisk === '' ? 'packages.lock does not exist' : 'packages.lock is out of date', 'run package-sdk lock and commit packages.lock'));
  return { lockFile, status: 'outdated', document, diff, findings };
}

/** The git entries of the installation, fetched in parallel before the loader asks for them one by one. */
function gitSources(installation: Installation | undefined): GitSource[] {
  return (installation?.entries ?? []).flatMap((entry) =>
    entry.source && 'git' in entry.source ? [{ key: entry.key, ...entry.source }] : []);
}
