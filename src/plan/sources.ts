/**
 * The installation as plan and apply see it (compat-package-sdk-install §2.6, §2.7, §4.2 steps 2–3): git
 * sources loaded strictly against packages.lock (always fetched; a moved tag refuses), the whole lock
 * compared with the packages, the static check passed, and `lockHash` computed from what is on disk now.
 */
import { join, resolve } from 'node:path';
import { isError } from '../model/finding.js';
import { hasGitSources, type Installation } from '../model/installation.js';
import type { Workspace } from '../model/workspace.js';
import type { LockEntry } from '../sources/lock-file.js';
import { Refusal } from '../fs/refusal.js';
import { contentHash } from '../sources/content-hash.js';
import { LOCK_FILE_NAME, LockFileError, lockHash, readLock } from '../sources/lock-file.js';
import { activeParseCache, type Parse, type ParseCache } from '../load/parse-cache.js';
import { installationProbes } from '../load/installation.js';
import { gitSourceResolver, sameSource, type GitSourceResolver } from '../load/source-resolver.js';
import { loadTargets } from '../load/targets.js';

export interface LoadedInstallation {
  workspace: Workspace;
  installation: Installation;
  /** Lock-style entries of every package, in dependency order. */
  entries: LockEntry[];
  lockHash: string;
  /** Git sources read from the cache because their remote was unavailable: the plan goes on, a person should know. */
  warnings: string[];
  /** Whether the check's verdict came from the index: nothing it depends on changed since a plan stored it. */
  verdictReused: boolean;
}

export async function loadInstallation(install: string, options: { cwd?: string; cacheDir?: string } = {}): Promise<LoadedInstallation> {
  const resolveGitSource = gitSourceResolver({ strict: true, installFile: install, ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}) });
  const { workspace, warnings, contentHashes, verdictReused } = await checkedInstallation(install, resolveGitSource, options.cwd);
  const installation = workspace.installation!;
  let lock: Awaited<ReturnType<typeof readLock>>;
  const lockFile = join(installation.dir, LOCK_FILE_NAME);
  try {
    lock = await readLock(lockFile);
  } catch (error) {
    if (error instanceof LockFileError) throw new Refusal(error.code, error.message, { hint: 'packages.lock is written by package-sdk lock only: lock again' });
    throw error;
  }
  const locked = new Map((lock?.packages ?? []).map((entry) => [entry.key, entry]));
  const entries: LockEntry[] = [];
  for (const pkg of workspace.packages) {
    const source = pkg.source ?? { path: '.' };
    const commit = 'git' in source ? locked.get(pkg.key)?.commit : undefined;
    entries.push({ key: pkg.key, version: pkg.version ?? '', source, ...(commit ? { commit } : {}), contentHash: contentHashes.get(pkg.dir) ?? (await contentHash(pkg.dir)) });
  }
  if (lock) {
    const problems = lockProblems(entries, lock.packages, sameSource, workspace);
    if (problems.length > 0) {
      throw new Refusal(problems[0]!.split(':')[0]!, `${lockFile} does not match the installation:\n  ${problems.join('\n  ')}`, { hint: `lock again (package-sdk lock --install ${install}) if the changes are accepted`, exitCode: 1, problems });
    }
  }
  return { workspace, installation, entries, lockHash: lockHash(entries), warnings, verdictReused };
}

/** The check's verdict on an installation that passed it: what a later plan reuses while no input changes. */
interface PassedCheck {
  workspace: Workspace;
  /** Git sources read from the cache because their remote was unavailable. */
  warnings: string[];
  /** `contentHash` of package directories, by directory, when known without reading them. */
  contentHashes: ReadonlyMap<string, string>;
  verdictReused: boolean;
}

/** What the index keeps of a plan's check (which found no error): the content hash of each package directory. */
interface StoredVerdict {
  contentHashes: [string, string][];
}

/**
 * How a stored verdict takes a file whose stat changed: as the same only when its bytes are (a `touch`, a
 * checkout). The check's own reports also take an edit no stage sees (a comment) as the same, but such an edit
 * changes the package's content hash.
 */
const BYTES_ONLY: Parse = () => ({ findings: [] });

/**
 * The installation checked — or, when the check's index holds the verdict of an earlier plan and none of its
 * inputs changed since (the installation file, every file and folder of its packages, the places where a
 * package key is looked for), the installation loaded through the index without running the rules again:
 * a pipeline plans on every change, most often of nothing the packages hold. Installations with git sources
 * are always checked: their checkouts and the lock are inputs the index does not watch.
 * Refuses when the check finds errors.
 */
async function checkedInstallation(install: string, resolveGitSource: GitSourceResolver, cwd: string | undefined): Promise<PassedCheck> {
  const index = activeParseCache();
  const key = JSON.stringify(['plan', resolve(cwd ?? '.'), resolve(cwd ?? '.', install)]);
  const stored = index?.reusableReport(key, BYTES_ONLY) as StoredVerdict | undefined;
  if (stored !== undefined) {
    const workspace = await loadTargets({ install, resolveGitSource, ...(cwd ? { cwd } : {}) });
    if (workspace.installation && !workspace.findings.some(isError)) return { workspace, warnings: [], contentHashes: new Map(stored.contentHashes), verdictReused: true };
  }
  // Loaded only now: a plan whose stored verdict stands never initializes the rules (nor CEL under them).
  const { checkedWorkspace } = await import('./checked-workspace.js');
  const { workspace, installation, warnings } = await checkedWorkspace(install, resolveGitSource, cwd);
  const contentHashes = new Map<string, string>();
  if (index !== undefined && !hasGitSources(installation)) {
    for (const pkg of workspace.packages) contentHashes.set(pkg.dir, await contentHash(pkg.dir));
    storeVerdict(index, key, workspace, contentHashes);
  }
  return { workspace, warnings, contentHashes, verdictReused: false };
}

/**
 * Keeps the verdict with its inputs: the files loaded (the installation file among them), every file and folder
 * of the packages, and each place a package key is looked for (`installationProbes`) — not the installation's
 * folder itself, which changes with every plan file written into it.
 */
function storeVerdict(index: ParseCache, key: string, workspace: Workspace, contentHashes: ReadonlyMap<string, string>): void {
  const verdict: StoredVerdict = { contentHashes: [...contentHashes] };
  index.storeReport(key, verdict, workspace.packages.map((pkg) => pkg.dir), installationProbes(workspace.installation!, workspace.packages));
}

/** The reference's whole-lock comparison: the first difference of each package, then keys only the lock has. */
function lockProblems(
  entries: readonly LockEntry[], lockEntries: readonly LockEntry[], sameSource: (a: LockEntry['source'], b: LockEntry['source']) => boolean,
  workspace: Workspace,
): string[] {
  const byKey = new Map(lockEntries.map((entry) => [entry.key, entry]));
  const problems: string[] = [];
  for (const entry of entries) {
    const old = byKey.get(entry.key);
    if (!old) problems.push(`lock_stale: package '${entry.key}' is not in lock`);
    else if (!sameSource(old.source, entry.source)) {
      problems.push(`lock_stale: package '${entry.key}': source in lock ${JSON.stringify(old.source)}, in the installation ${JSON.stringify(entry.source)}`);
    } else if (old.contentHash !== entry.contentHash) {
      problems.push(`content_mismatch: package '${entry.key}' (${workspace.package(entry.key)?.dir ?? ''}) changed after locking`);
    } else if (old.version !== entry.version) {
      problems.push(`lock_stale: package '${entry.key}': version in lock ${old.version}, in the manifest ${entry.version}`);
    }
  }
  const known = new Set(entries.map((entry) => entry.key));
  const extra = lockEntries.map((entry) => entry.key).filter((key) => !known.has(key)).sort();
  if (extra.length > 0) problems.push(`lock_stale: lock has packages not in the installation: ${extra.join(', ')}`);
  return problems;
}
