/**
 * The CEL type of an expression of a process, and of the data path under the cursor in it — typed in the
 * process's profile as check types it: its data schema, stage ids, calendar, the package settings and, for an
 * output mapping, the result of its step (skill outputs and task fields are untyped here: they need the catalog).
 */
import { celGeneralType, checkExpression, createEnvironment } from '../cel/index.js';
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

export function expressionTypeAt(process: PackageObject, pkg: Package | undefined, path: YamlPath, dataPath: readonly string[] | undefined): ExpressionType | undefined {
  const data = typingDataSchema(processDataSchema(process));
  const spec = { ...process.spec, data };
  const pointer = pointerOf(path);
  const expression = processExpressions(spec).find((candidate) => candidate.pointer === pointer);
  if (!expression) return undefined;
  const decisions = Array.isArray(process.spec.decisions) ? process.spec.decisions.filter(isRecord) : [];
  const base = processProfile(spec, settingsOf(pkg), pkg?.key);
  const environment = createEnvironment(expressionProfile(base, expression, (step) => stepResultOf(step, decisions)));
  const type = shown(checkExpression(environment, expression.source).type);
  if (type === undefined) return undefined;
  const text = dataPath && dataPath.length > 0 ? `data.${dataPath.join('.')}` : undefined;
  const pathType = text === undefined ? undefined : shown(checkExpression(environment, text).type);
  return { type, ...(text !== undefined && pathType !== undefined ? { path: { text, type: pathType } } : {}) };
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
