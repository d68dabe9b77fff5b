/**
 * The one place the language server runs `check`: the workspace as its files and the editor's unsaved buffers
 * make it. Kept to this module so a check that re-reads only what changed can take its place alone.
 */
import { resolve } from 'node:path';
import { check, type CheckResult } from '../check/index.js';
import type { Overlay } from '../load/overlay.js';
import { activeParseCache } from '../load/parse-cache.js';

export class WorkspaceCheck {
  private last: CheckResult | undefined;

  constructor(readonly root: string) {}

  /** The result of the latest check, when one ran. */
  get latest(): CheckResult | undefined {
    return this.last;
  }

  /** Checks the workspace with `buffers` (absolute path → text) in place of the files they stand for. */
  async run(buffers: Overlay): Promise<CheckResult> {
    // Each check stats the files again: one changed on disk since the last (a checkout, another tool's write) is read anew.
    activeParseCache()?.nextRun();
    this.last = await check({ cwd: this.root, overlay: buffers });
    return this.last;
  }

  /** The absolute path of a file as findings and documents name it (relative to the root). */
  pathOf(file: string): string {
    return resolve(this.root, file);
  }
}
