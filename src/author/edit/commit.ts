/**
 * How an edit reaches the disk: `check` first runs on the package as the edit would leave it — a copy in a
 * temporary directory, its neighbours linked in so that `requires` resolve — and an edit that brings an error
 * the package did not have is refused with nothing written. Then each file is replaced in one step (a temp
 * file, then rename), a moved file created before its old name is removed. `--dry-run` stops before writing
 * and shows the unified diff.
 */
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, realpath, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { check } from '../../check/index.js';
import { displayPath } from '../../load/package.js';
import type { Finding } from '../../model/finding.js';
import { Refusal } from '../../fs/refusal.js';
import { createFile, replaceFile } from '../../fs/write.js';
import { unifiedDiff } from './diff.js';

/** One file the edit writes: its new text, and the name it had when the edit moves it. */
export interface FileChange {
  /** Absolute path of the file as the edit leaves it. */
  path: string;
  text: string;
  /** Its text before the edit ('' for a new file). */
  before: string;
  /** Absolute path it had before, when the edit moves it. */
  from?: string;
}

/** What `edit` did (or, with `--dry-run`, would do); `edit --json` prints it. */
export interface EditResult {
  operation: string;
  dryRun: boolean;
  /** True when the files were written (false with --dry-run, or when the edit changes nothing). */
  written: boolean;
  /** The files changed, as shown to the user; `from` for a file the edit renames. */
  files: { file: string; from?: string }[];
  /** The unified diff of every change. */
  diff: string;
  /** Warnings the package has after the edit and did not have before. */
  warnings: Finding[];
}

export interface CommitOptions {
  operation: string;
  /** The package directory the files belong to. */
  packageDir: string;
  cwd: string;
  dryRun: boolean;
}

export async function commitEdit(changes: readonly FileChange[], options: CommitOptions): Promise<EditResult> {
  const changed = changes.filter((change) => change.text !== change.before || change.from !== undefined);
  const show = (path: string): string => displayPath(options.cwd, path);
  for (const change of changed) {
    if (change.from !== undefined && existsSync(change.path)) throw new Refusal('file_exists', `${show(change.path)} already exists; the edit would overwrite it`);
  }
  const diff = changed.map((change) => unifiedDiff(show(change.from ?? change.path), show(change.path), change.before, change.text)).join('');
  const result: EditResult = {
    operation: options.operation, dryRun: options.dryRun, written: false,
    files: changed.map((change) => ({ file: show(change.path), ...(change.from !== undefined ? { from: show(change.from) } : {}) })),
    diff, warnings: [],
  };
  if (changed.length === 0) return result;
  const verdict = await verdictOf(changed, options.packageDir);
  const shown = (finding: Finding): Finding => ({ ...finding, file: show(join(verdict.parent, finding.file)) });
  if (verdict.errors.length > 0) {
    const errors = verdict.errors.map(shown);
    const first = errors[0]!;
    throw new Refusal('edit_invalid', `the edit would make the package invalid — nothing was written: ${first.file}:${first.line}: ${first.code}: ${first.message}` +
      (errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''), {
      hint: first.hint ?? 'run the edit with --dry-run to see what it would write',
      problems: errors.map((f) => `${f.file}:${f.line}: ${f.code}: ${f.message}`),
      details: { findings: errors },
    });
  }
  result.warnings = verdict.warnings.map(shown);
  if (options.dryRun) return result;
  for (const change of changed) {
    if (change.from !== undefined) await createFile(change.path, change.text, show(change.path));
    else await replaceFile(change.path, change.text);
  }
  for (const change of changed) if (change.from !== undefined) await unlink(change.from);
  result.written = true;
  return result;
}

interface Verdict {
  /** The directory finding files are relative to. */
  parent: string;
  errors: Finding[];
  warnings: Finding[];
}

/** The errors and warnings the package has after the changes and not before (files relative to the package's parent). */
async function verdictOf(changes: readonly FileChange[], packageDir: string): Promise<Verdict> {
  const real = await realpath(packageDir);
  const parent = dirname(real);
  const name = basename(real);
  const before = await check({ cwd: parent, packages: [real] });
  const root = await realpath(await mkdtemp(join(tmpdir(), 'package-sdk-edit-')));
  try {
    await cp(real, join(root, name), { recursive: true, filter: (source) => !/[/\\](\.git|node_modules)$/.test(source) });
    for (const entry of await readdir(parent)) if (entry !== name) await symlink(join(parent, entry), join(root, entry));
    const inCopy = (path: string): string => join(root, name, relative(real, path));
    for (const change of changes) {
      if (change.from !== undefined) await rm(inCopy(change.from), { force: true });
      await mkdir(dirname(inCopy(change.path)), { recursive: true });
      await writeFile(inCopy(change.path), change.text);
    }
    const after = await check({ cwd: root, packages: [join(root, name)] });
    const moved = new Map(changes.filter((c) => c.from !== undefined).map((c) => [inPackage(real, name, c.from!), inPackage(real, name, c.path)]));
    const known = new Set([...before.report.errors, ...before.report.warnings].map((finding) => identity(finding, moved)));
    const fresh = (finding: Finding): boolean => !known.has(identity(finding));
    return { parent, errors: after.report.errors.filter(fresh), warnings: after.report.warnings.filter(fresh) };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** `<package>/<path>`, as check shows a file of the package from its parent directory. */
function inPackage(real: string, name: string, path: string): string {
  return [name, ...relative(real, path).split(sep)].join('/');
}

/** What makes a finding the same before and after: its code, file (moved files by their new name), place and message. */
function identity(finding: Finding, moved: ReadonlyMap<string, string> = new Map()): string {
  return JSON.stringify([finding.code, moved.get(finding.file) ?? finding.file, finding.path, finding.message]);
}
