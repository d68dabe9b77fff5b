/**
 * A new version of a process against the latest one the core has published: an element keeps its kind
 * (`element_kind_changed`, an error at the element's id), and an element that is gone is either mapped by a
 * migration from that version or reported (`element_removed`, a warning at `/spec`: instances on the old
 * version lose their place). Only the core can judge this — `check` does not see what the tenant published.
 */
import { isRecord } from '../json/guards.js';
import { childPointer } from '../json/pointer.js';
import { STEP_KINDS, processModel, type ProcessElement } from '../process/index.js';
import type { SourceObject } from './package-source.js';
import { type Problem, problemIn } from './problems.js';

export function versionStabilityProblems(object: SourceObject, published: Readonly<Record<string, unknown>>, publishedVersion: number): Problem[] {
  const before = kindsById(processModel(published).elements);
  const now = processModel(object.spec).elements;
  const problems: Problem[] = [];
  const present = new Set<string>();
  for (const element of now) {
    present.add(element.id);
    const was = before.get(element.id);
    const kind = elementKind(element);
    if (was !== undefined && was !== kind) {
      problems.push(problemIn(object.document, 'element_kind_changed', childPointer(element.pointer, 'id'), `element '${element.id}' is a ${kind} here and was a ${was} in version ${publishedVersion}`, {
        hint: `give the ${kind} a new id, and map the old one in a migration from version ${publishedVersion}`,
      }));
    }
  }
  const mapped = migratedFrom(object.spec, publishedVersion);
  for (const id of before.keys()) {
    if (present.has(id) || mapped.has(id)) continue;
    problems.push(problemIn(object.document, 'element_removed', '/spec', `element '${id}' of version ${publishedVersion} is gone, and no migration from version ${publishedVersion} maps it`, {
      severity: 'warning',
      hint: `add spec.migrations: [{from: ${publishedVersion}, to: ${String(object.spec.version)}, map: {${id}: <an element of this version>}}]`,
    }));
  }
  return problems;
}

function kindsById(elements: readonly ProcessElement[]): Map<string, string> {
  return new Map(elements.map((element) => [element.id, elementKind(element)]));
}

/** A step's kind (`human`, `call`, …), a decision table, or what holds the element (`stages` → stage, `milestones` → milestone). */
function elementKind(element: ProcessElement): string {
  if (element.table) return 'decision table';
  const step = STEP_KINDS.find((kind) => Object.hasOwn(element.node, kind));
  if (step !== undefined) return `${step} step`;
  const holder = element.pointer.split('/').reverse().find((segment) => !/^\d+$/.test(segment)) ?? 'element';
  return holder.endsWith('s') ? holder.slice(0, -1) : holder;
}

/** The element ids the migrations from `version` map (the keys of their `map`). */
function migratedFrom(spec: Readonly<Record<string, unknown>>, version: number): Set<string> {
  const migrations = Array.isArray(spec.migrations) ? spec.migrations : [];
  return new Set(migrations.filter((migration) => isRecord(migration) && migration.from === version && isRecord(migration.map)).flatMap((migration) => Object.keys((migration as { map: object }).map)));
}
