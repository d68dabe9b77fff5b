/**
 * The parts of a process that `check` reports as never reachable, read from its findings by place rather than
 * by the exact code: a finding whose code speaks of `unreachable` marks the element its path points into (a
 * stage's `entry`, a milestone's `when`, a step's `id`), everything inside that element, and — a block being a
 * sequence — the steps after an unreachable step in its block.
 */
import type { Finding } from '../model/finding.js';
import type { ProcessModel } from '../process/index.js';

/** The findings of `file` that report an unreachable part. */
export function unreachableFindings(findings: readonly Finding[], file: string): Finding[] {
  return findings.filter((finding) => finding.file === file && /unreachable/.test(finding.code));
}

/** JSON Pointers of the elements the findings' paths point into, and of the steps that follow them. */
export function unreachablePointers(model: ProcessModel, paths: readonly string[]): Set<string> {
  const marked = new Set<string>();
  for (const path of paths) {
    const owner = owningElement(model, path);
    if (owner === undefined) continue;
    marked.add(owner);
    const step = model.stepAt(owner);
    for (const later of step?.block.steps.filter((sibling) => sibling.index > step.index) ?? []) marked.add(later.pointer);
  }
  return marked;
}

/** The pointer of the innermost element that holds `path`. */
function owningElement(model: ProcessModel, path: string): string | undefined {
  let best: string | undefined;
  for (const element of model.elements) {
    const holds = path === element.pointer || path.startsWith(`${element.pointer}/`);
    if (holds && (best === undefined || element.pointer.length > best.length)) best = element.pointer;
  }
  return best;
}
