/**
 * The one place the language server runs `check`: the workspace as its files and the editor's unsaved buffers
 * make it. Kept to this module so a check that re-reads only what changed can take its place alone.
 *
 * Each check takes the object rules' runs of the last one where they stand (the memo `check` keeps, as for the
 * workspace index's reports: src/check/rule-memo.ts): a keystroke in one file of 10,000 runs the object rules
 * again for that file's object and the few that look it up. A document changed since the last check when what it
 * was read from changed: the buffer's text, or the hash of the file's bytes the index gave it from. And each check
 * is handed the stats of the files no event of the file system named since the last (as the resident checker's
 * runs are: load/watched-stats.ts), so that it stats only what changed.
 */
import { resolve } from 'node:path';
import { check, type CheckResult } from '../check/index.js';
import type { RuleMemo } from '../check/rule-memo.js';
import type { SourceDocument } from '../json/document.js';
import type { Overlay } from '../load/overlay.js';
import { activeParseCache, indexName } from '../load/parse-cache.js';
import { WatchedStats } from '../load/watched-stats.js';

export class WorkspaceCheck {
  private last: CheckResult | undefined;
  /** The memo of the last check, taken by the next (which changes it in place). */
  private memo: RuleMemo | undefined;
  /** What each document of the last check was read from (see `sourceOf`), by file. */
  private sources = new Map<string, string>();
  private readonly watched = new WatchedStats();
  /** The name of the workspace index of `root` (the one the server uses, when it was made for the same folder). */
  private readonly indexName: string;

  constructor(readonly root: string) {
    this.indexName = indexName(root);
  }

  /** The result of the latest check, when one ran. */
  get latest(): CheckResult | undefined {
    return this.last;
  }

  /** Checks the workspace with `buffers` (absolute path → text) in place of the files they stand for. */
  async run(buffers: Overlay): Promise<CheckResult> {
    const [previous, before] = [this.memo, this.sources];
    this.memo = undefined;
    const changedSince = (document: SourceDocument) => {
      const source = this.sourceOf(document, buffers);
      return source === undefined || before.get(document.file) !== source;
    };
    // Each check stats anew the files an event named since the last (an edit on disk, a checkout, another tool's write).
    this.last = await this.watched.aroundRun(this.indexName, (earlier) => {
      activeParseCache()?.nextRun(earlier);
      return check({ cwd: this.root, overlay: buffers, memory: { previous, changedSince } });
    });
    this.memo = this.last.memo;
    this.sources = new Map();
    for (const [file, document] of this.last.workspace.documents()) {
      const source = this.sourceOf(document, buffers);
      if (source !== undefined) this.sources.set(file, source);
    }
    return this.last;
  }

  /** The absolute path of a file as findings and documents name it (relative to the root). */
  pathOf(file: string): string {
    return resolve(this.root, file);
  }

  /** What `document` was read from: the buffer's text, or the file's hash as the index knows it; undefined when unknown. */
  private sourceOf(document: SourceDocument, buffers: Overlay): string | undefined {
    const buffer = buffers.get(this.pathOf(document.file));
    if (buffer !== undefined) return `buffer\0${buffer}`;
    const hash = activeParseCache()?.contentHash(document);
    return hash === undefined ? undefined : `file\0${hash}`;
  }
}
