/**
 * Writing the HTML pages of `plan --html`, `plan show --html` and `test --html`: the commands' one call each.
 * A refused plan still gets its page — the refusal is what the reviewer must read.
 */
import { replaceFile } from '../fs/write.js';
import { Refusal } from '../fs/refusal.js';
import type { PlanDocument } from '../plan/document.js';
import type { TestOptions, TestReport } from '../sandbox/index.js';

/** Runs `build` (a plan), then writes the page of what it gave — or of its refusal, which it raises again. */
export async function withPlanPage<T extends { document: PlanDocument; warnings: string[] }>(out: string | undefined, build: (warn: (message: string) => void) => Promise<T>): Promise<T> {
  const warnings: string[] = [];
  if (out === undefined) return build(() => undefined);
  const { renderPlanHtml } = await import('../report/plan-html.js');
  try {
    const result = await build((message) => warnings.push(message));
    await replaceFile(out, renderPlanHtml({ document: result.document, warnings: result.warnings }));
    return result;
  } catch (error) {
    if (error instanceof Refusal) await replaceFile(out, renderPlanHtml({ warnings, refusal: error }));
    throw error;
  }
}

/** The page of a saved plan file. */
export async function writePlanFilePage(out: string, document: PlanDocument, file: string): Promise<void> {
  const { renderPlanHtml } = await import('../report/plan-html.js');
  await replaceFile(out, renderPlanHtml({ document, file }));
}

/** The page of a test run, with the coverage drawn on each process it tested (found again in the targets). */
export async function writeTestPage(out: string, report: TestReport, targets: TestOptions): Promise<void> {
  const [{ check }, { diagramOf }, { readCoverage }, { unreachableFindings }, { renderDot }, { renderSvg }, { renderTestHtml }] = await Promise.all([
    import('../check/index.js'), import('../graph/load.js'), import('../graph/coverage.js'), import('../graph/unreachable.js'),
    import('../graph/dot.js'), import('../graph/svg.js'), import('../report/test-html.js'),
  ]);
  const coverage = readCoverage(report, 'the test report');
  const { report: checked, workspace } = await check(targets);
  const findings = [...checked.errors, ...checked.warnings];
  const processes = [];
  for (const object of workspace.objects('Process')) {
    if (!coverage.some((entry) => entry.process === object.key && (entry.package === undefined || entry.package === object.package))) continue;
    const source = { key: object.key, package: object.package, file: object.file, spec: object.spec, unreachable: unreachableFindings(findings, object.file) };
    const diagram = diagramOf(source, coverage);
    processes.push({ diagram, file: object.file, svg: await renderSvg(renderDot(diagram, { idPrefix: `${object.package}.${object.key}.` })) });
  }
  await replaceFile(out, renderTestHtml(report, processes));
}
