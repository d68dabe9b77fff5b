/**
 * The language server's checks take the object rules' runs of the last check where they stand
 * (src/lsp/workspace-check.ts): after each edit — typed in a buffer, or written to a file on disk — the report is
 * the one a check from scratch gives, and the runs of the objects no edit touched are taken, not run again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import type { CheckReport } from '../../src/model/check-report.js';
import { activeParseCache, ParseCache, useParseCache } from '../../src/load/parse-cache.js';
import { WorkspaceCheck } from '../../src/lsp/workspace-check.js';
import { overlay } from '../support/overlay.js';

const root = overlay('example');
const CACHE = mkdtempSync(join(tmpdir(), 'package-sdk-lsp-index-'));
const PACKAGE = join(root, 'packages/field-maintenance');
const PROCESS = join(PACKAGE, 'processes/work-order.yaml');
const ROLE = join(PACKAGE, 'roles/field-technician.yaml');
const [processText, roleText] = [readFileSync(PROCESS, 'utf8'), readFileSync(ROLE, 'utf8')];
/** Longer than the index's racy window: a file written now is trusted by its stat at the next check. */
const settle = () => new Promise((done) => setTimeout(done, 120));

beforeAll(() => useParseCache(new ParseCache(CACHE, root)));
afterAll(() => {
  useParseCache(undefined);
  for (const dir of [root, CACHE]) rmSync(dir, { recursive: true, force: true });
});

/** The report of a check from scratch: no memo, and no index (whose stats the server's checks took). */
async function fromScratch(buffers: Map<string, string>): Promise<CheckReport> {
  const index = activeParseCache();
  useParseCache(undefined);
  try {
    return (await check({ cwd: root, overlay: buffers })).report;
  } finally {
    useParseCache(index);
  }
}

describe("the language server's checks", () => {
  it('give the report of a check from scratch after each edit, taking the runs the edit left standing', async () => {
    const server = new WorkspaceCheck(root);
    const edits: [string, () => Map<string, string>][] = [
      ['nothing yet', () => new Map()],
      ['a typo typed in a buffer', () => new Map([[PROCESS, processText.replace('taskType: site-inspection', 'taskType: site-inspecton')]])],
      ['the typo mended, the buffer still open', () => new Map([[PROCESS, processText]])],
      ['a role renamed on disk, its references left', () => (writeFileSync(ROLE, roleText.replace('key: field-technician', 'key: field-tech')), new Map())],
      ['the same role renamed back in a buffer', () => new Map([[ROLE, roleText]])],
      ['the buffer closed, the file as renamed', () => new Map()],
      ['the file written back', () => (writeFileSync(ROLE, roleText), new Map())],
    ];
    const taken: number[] = [];
    const found: string[][] = [];
    for (const [edit, buffersOf] of edits) {
      const buffers = buffersOf();
      await settle();
      const { report, objectRuns } = await server.run(buffers);
      expect(report, edit).toEqual(await fromScratch(buffers));
      taken.push(objectRuns!.taken);
      found.push([...report.errors, ...report.warnings].filter((finding) => finding.code.startsWith('unknown_')).map((finding) => `${finding.code} ${finding.file}`));
    }
    const [typo, renamed] = [['unknown_task_type packages/field-maintenance/processes/work-order.yaml'], expect.arrayContaining(['unknown_role packages/field-maintenance/views/work-order-list.yaml'])];
    expect(found, 'what each edit breaks').toEqual([[], typo, [], renamed, [], renamed, []]);
    expect(taken[0], 'the first check has no runs to take').toBe(0);
    expect(taken.slice(1).every((count) => count > 0), `runs taken after each edit: ${taken.join(', ')}`).toBe(true);
  });
});
