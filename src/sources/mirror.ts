import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SimpleGit, SimpleGitOptions } from 'simple-git';
import { exists, mirrorDir, temporaryName } from './cache.js';
import { protocolConfig, type Transport } from './source.js';

/**
 * The bare mirror of one git source (`repo.git` in the source's cache directory). Only tags are fetched;
 * content is read from blobs, never through a working tree, so no filter, attribute or `autocrlf` setting
 * of the repository or of the user can change the bytes of a package.
 */

export class GitError extends Error {}

export interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  /** Blob size in bytes; undefined for non-blobs. */
  size?: number;
  /** Path in the repository, decoded; undefined when its bytes are not UTF-8. */
  path?: string;
  /** Path as git printed it, for messages about names that are not UTF-8. */
  printed: string;
}

const ENV_CATEGORIES_OF_THE_USER = {
  // The user's own environment (ssh command, askpass, config paths) is trusted; what this module
  // adds itself is the protocol restriction, which simple-git treats as an override.
  allowUnsafeProtocolOverride: true,
  allowUnsafeSshCommand: true,
  allowUnsafeAskPass: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeGitProxy: true,
};

export class Mirror {
  private constructor(readonly dir: string, readonly url: string, private readonly transport: Transport) {}

  /** Opens the mirror of a source, creating it (atomically, by rename) on first use. */
  static async open(source: string, url: string, transport: Transport): Promise<Mirror> {
    const mirror = new Mirror(mirrorDir(source), url, transport);
    if (!(await exists(join(mirror.dir, 'HEAD')))) {
      const staging = join(source, temporaryName('staging'));
      await mkdir(staging, { recursive: true });
      try {
        const git = await mirror.git(staging);
        await git.raw(['init', '--bare', '--quiet']);
        await git.raw(['config', 'remote.origin.url', url]);
        await rename(staging, mirror.dir);
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    }
    return mirror;
  }

  /** Mirrors the remote's tags (a moved tag is force-updated, a deleted one pruned). */
  async fetchTags(): Promise<void> {
    await this.run(['fetch', '--quiet', '--prune', '--force', '--no-recurse-submodules', 'origin',
      '+refs/tags/*:refs/tags/*']);
  }

  /** The commit a tag points at, or undefined when there is no such tag (branches are never looked at). */
  async resolveTag(ref: string): Promise<string | undefined> {
    const out = await this.run(['rev-parse', '--verify', '--quiet', `refs/tags/${ref}^{commit}`]).catch(() => '');
    const commit = out.trim();
    return /^[0-9a-f]{40}$/.test(commit) ? commit : undefined;
  }

  async hasCommit(commit: string): Promise<boolean> {
    if (!(await exists(join(this.dir, 'HEAD')))) return false;
    return this.run(['cat-file', '-e', `${commit}^{commit}`]).then(() => true, () => false);
  }

  /** Every entry under `subdir` (or the whole tree) at `commit`, recursively, with sizes. */
  async listTree(commit: string, subdir: string | undefined): Promise<TreeEntry[]> {
    const args = ['-c', 'core.quotePath=true', 'ls-tree', '-r', '-l', '--full-tree', commit];
    if (subdir !== undefined) args.push('--', subdir);
    const out = await this.run(args);
    return out.split('\n').filter((line) => line !== '').map(parseTreeLine);
  }

  /** Bytes of the given blobs: one `git show` per batch, split by the sizes that `ls-tree -l` reported. */
  async readBlobs(blobs: readonly { oid: string; size: number }[]): Promise<Map<string, Buffer>> {
    const unique = [...new Map(blobs.map((blob) => [blob.oid, blob.size])).entries()];
    const contents = new Map<string, Buffer>();
    for (let start = 0; start < unique.length; start += 200) {
      const batch = unique.slice(start, start + 200);
      const bytes = await this.binary(['show', '--no-textconv', ...batch.map(([oid]) => oid)]);
      const expected = batch.reduce((sum, [, size]) => sum + size, 0);
      if (bytes.length !== expected) {
        throw new GitError(`${this.url}: git returned ${bytes.length} bytes for blobs of ${expected} bytes`);
      }
      let offset = 0;
      for (const [oid, size] of batch) {
        contents.set(oid, bytes.subarray(offset, offset + size));
        offset += size;
      }
    }
    return contents;
  }

  private async run(args: string[]): Promise<string> {
    const git = await this.git(this.dir);
    try {
      return await git.raw(args);
    } catch (error) {
      throw asGitError(error);
    }
  }

  private async binary(args: string[]): Promise<Buffer> {
    const chunks: Buffer[] = [];
    const git = (await this.git(this.dir)).outputHandler((_command, stdout) => {
      stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    });
    try {
      await git.raw(args);
    } catch (error) {
      throw asGitError(error);
    }
    return Buffer.concat(chunks);
  }

  private async git(baseDir: string): Promise<SimpleGit> {
    const { simpleGit } = await import('simple-git');
    const options: Partial<SimpleGitOptions> = {
      baseDir,
      config: protocolConfig(this.transport),
      trimmed: false,
      unsafe: ENV_CATEGORIES_OF_THE_USER,
    };
    return simpleGit(options).env(gitEnvironment(baseDir));
  }
}

/** Editors, pagers and diff tools are never run by these commands; simple-git refuses them in the environment. */
const UNUSED_PROGRAMS = ['EDITOR', 'VISUAL', 'GIT_EDITOR', 'GIT_SEQUENCE_EDITOR', 'PAGER', 'GIT_PAGER', 'GIT_EXTERNAL_DIFF'];

function gitEnvironment(gitDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of UNUSED_PROGRAMS) delete env[name];
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_DIR: gitDir, // never discover an enclosing repository
  };
}

function asGitError(error: unknown): GitError {
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOENT/.test(message) && /spawn/.test(message)) return new GitError('git sources need git in PATH');
  return new GitError(message.trim().split('\n').filter((line) => line.trim() !== '').join('; '));
}

const TREE_LINE = /^(\d{6}) (\S+) ([0-9a-f]+) +(\S+)\t(.*)$/;

function parseTreeLine(line: string): TreeEntry {
  const match = TREE_LINE.exec(line);
  if (!match) throw new GitError(`unexpected line from git ls-tree: ${line}`);
  const [, mode, type, oid, size, printed] = match;
  return { mode, type, oid, size: size === '-' ? undefined : Number(size), path: decodePath(printed), printed };
}

const C_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** Undoes git's C-style quoting (`core.quotePath`), then insists on UTF-8. */
function decodePath(printed: string): string | undefined {
  if (!printed.startsWith('"')) return printed;
  const bytes: number[] = [];
  const body = printed.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '\\') {
      bytes.push(...Buffer.from(body[i], 'utf8'));
    } else if (/[0-7]/.test(body[i + 1] ?? '')) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(C_ESCAPES[body[i + 1]] ?? body.charCodeAt(i + 1));
      i += 1;
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return undefined;
  }
}
