/**
 * The CEL type of an expression of a process, and of the data path under the cursor in it — typed in the
 * process's profile as check types it: its data schema, stage ids, calendar, the package settings and, for an
 * output mapping, the result of its step (skill outputs and task fields are untyped here: they need the catalog).
 */
import { CompletionItemKind, type CompletionItem } from 'vscode-languageserver';
import { celDefinitions, celGeneralType, checkExpression, createEnvironment, type CelEnvironment, type CelFunction } from '../cel/index.js';
import { isRecord } from '../json/guards.js';
import type { Package, PackageObject } from '../model/package.js';
import { expressionProfile, processDataSchema, processExpressions, processProfile, stepResultOf, typingDataSchema } from '../process/index.js';
import { pointerOf } from './package-graph.js';
import type { YamlPath } from './yaml-place.js';

export interface ExpressionType {
  /** The type of the whole expression. */
  type: string;
  /** The type of the data path under the cursor, when the cursor is on one. */
  path?: { text: string; type: string };
}

/** The environment the expression at `path` of a process is checked in, with its source; undefined off an expression. */
function expressionAt(process: PackageObject, pkg: Package | undefined, path: YamlPath): { environment: CelEnvironment; source: string } | undefined {
  const data = typingDataSchema(processDataSchema(process));
  const spec = { ...process.spec, data };
  const pointer = pointerOf(path);
  const expression = processExpressions(spec).find((candidate) => candidate.pointer === pointer);
  if (!expression) return undefined;
  const decisions = Array.isArray(process.spec.decisions) ? process.spec.decisions.filter(isRecord) : [];
  const base = processProfile(spec, settingsOf(pkg), pkg?.key);
  return { environment: createEnvironment(expressionProfile(base, expression, (step) => stepResultOf(step, decisions))), source: expression.source };
}

export function expressionTypeAt(process: PackageObject, pkg: Package | undefined, path: YamlPath, dataPath: readonly string[] | undefined): ExpressionType | undefined {
  const at = expressionAt(process, pkg, path);
  const type = at && shown(checkExpression(at.environment, at.source).type);
  if (!at || type === undefined) return undefined;
  const text = dataPath && dataPath.length > 0 ? `data.${dataPath.join('.')}` : undefined;
  const pathType = text === undefined ? undefined : shown(checkExpression(at.environment, text).type);
  return { type, ...(text !== undefined && pathType !== undefined ? { path: { text, type: pathType } } : {}) };
}

/**
 * Completion in an expression, by what the line holds before the cursor: after `receiver.` the methods of the
 * receiver's type (with their signatures), else the variables of the context and the global functions.
 */
export function expressionCompletions(process: PackageObject, pkg: Package | undefined, path: YamlPath, before: string): CompletionItem[] {
  const at = expressionAt(process, pkg, path);
  if (!at) return [];
  const definitions = celDefinitions(at.environment);
  const method = /(?<![\w.])([A-Za-z_][\w.]*)\.\w*$/.exec(before);
  if (method) {
    const type = checkExpression(at.environment, method[1]!).type;
    return type === undefined ? [] : functionItems(definitions.functions.filter((fn) => fn.receiverType !== undefined && receives(fn.receiverType, type)), CompletionItemKind.Method);
  }
  if (!/(?<![\w.])[A-Za-z_]?\w*$/.test(before)) return [];
  return [
    ...definitions.variables.map((variable) => ({ label: variable.name, kind: CompletionItemKind.Variable, detail: shown(variable.type) ?? variable.type })),
    ...functionItems(definitions.functions.filter((fn) => fn.receiverType === undefined), CompletionItemKind.Function),
  ];
}

/** One item per name, its overloads' signatures as the detail. */
function functionItems(functions: readonly CelFunction[], kind: CompletionItemKind): CompletionItem[] {
  const byName = new Map<string, string[]>();
  for (const fn of functions) byName.set(fn.name, [...(byName.get(fn.name) ?? []), fn.signature]);
  return [...byName].map(([name, signatures]) => ({ label: name, kind, detail: signatures.join('\n') }));
}

/** Whether a method declared on `receiverType` can be called on a value of `type`. */
function receives(receiverType: string, type: string): boolean {
  if (receiverType === type || receiverType === 'dyn') return true;
  const general = celGeneralType(type);
  if (general === 'list' || general === 'optional') return receiverType.startsWith(general);
  if (general === 'map') return receiverType.startsWith('map');
  return false;
}

/** A type as an author reads it: an object type the checker named after its path (`data.asset`) is a `map`. */
function shown(type: string | undefined): string | undefined {
  return type !== undefined && celGeneralType(type) === 'map' && !type.startsWith('map') ? 'map' : type;
}

/** `spec.settings.schema` of the package's manifest: what `settings.<path>` reads. */
function settingsOf(pkg: Package | undefined): Record<string, unknown> | undefined {
  const manifest = pkg?.manifest.value;
  const settings = isRecord(manifest) && isRecord(manifest.spec) && isRecord(manifest.spec.settings) ? manifest.spec.settings.schema : undefined;
  return isRecord(settings) ? settings : undefined;
}
