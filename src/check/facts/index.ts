/**
 * Facts: what several rules read about a workspace, computed once per check and offered to every rule as
 * `context.facts` — so that no rule imports another to share a result, and no rule reads files itself.
 */
import type { InstallVariable, JsonSchema } from '../../cel/index.js';
import type { SourceDocument } from '../../json/document.js';
import type { Package, PackageObject } from '../../model/package.js';
import type { Workspace } from '../../model/workspace.js';
import { processDataSchema } from '../../process/index.js';
import { settingsOf, settingsSchemaOf } from '../settings-schema.js';
import { coreView, type CoreView } from './core-view.js';
import { declaredLocales, localeDictionaries, type DeclaredLocale, type LocaleDictionary } from './locales.js';
import { resolveSchemaRef, type SchemaRefFailure } from './schema-refs.js';
import { reviewSettingsDeclaration, type SettingsProblem } from './settings.js';
import { isRecord } from '../../json/guards.js';

export type { CoreView, DeclaredLocale, LocaleDictionary, SchemaRefFailure, SettingsProblem };

export interface Facts {
  /** The mistakes of the package's settings declaration (none when it declares no settings). */
  settingsProblems(pkg: Package): readonly SettingsProblem[];
  /**
   * The settings schema that expressions are typed against: undefined when the package declares no settings,
   * `{}` (untyped) when the declaration has mistakes of its own, rather than typing reads against a schema
   * known to be wrong.
   */
  expressionSettings(pkg: Package | undefined): JsonSchema | undefined;
  /** `spec.variables` of the package manifest, as the expression checks substitute `${NAME}`. */
  variables(pkg: Package | undefined): Readonly<Record<string, InstallVariable>>;
  /** The well-formed locales of the manifest (undefined when `locales` is not a list). */
  locales(pkg: Package): DeclaredLocale[] | undefined;
  /** The usable dictionaries of a package by locale. */
  dictionaries(pkg: Package): Map<string, LocaleDictionary>;
  /** The JSON Schema of a process's data (inline or from its `$ref` file). */
  dataSchema(process: PackageObject): Record<string, unknown> | undefined;
  /**
   * The object as the core's static checks see it: `${NAME}` replaced by the manifest's defaults — or the
   * first `${NAME}` without one, for which the core skips the object.
   */
  coreView(object: PackageObject): CoreView;
  /** The JSON Schema a component param `$ref` names, or why it names none. */
  schemaRef(pkg: Package, component: PackageObject, ref: string): { schema: Record<string, unknown> } | SchemaRefFailure;
}

export function createFacts(workspace: Workspace): Facts {
  const settingsProblems = memo(reviewSettingsDeclaration);
  const schemaFiles = new Map<string, SourceDocument | SchemaRefFailure>();
  const variablesOf = (pkg: Package | undefined): Readonly<Record<string, InstallVariable>> => {
    const spec = pkg === undefined ? undefined : (pkg.manifest.value as { spec?: unknown } | null)?.spec;
    const variables = isRecord(spec) ? spec.variables : undefined;
    return isRecord(variables) ? (variables as Record<string, InstallVariable>) : {};
  };
  return {
    settingsProblems,
    expressionSettings(pkg) {
      if (pkg === undefined || settingsOf(pkg) === undefined) return undefined;
      const schema = settingsSchemaOf(pkg);
      return schema !== undefined && settingsProblems(pkg).length === 0 ? schema : {};
    },
    variables: variablesOf,
    locales: memo(declaredLocales),
    dictionaries: memo(localeDictionaries),
    dataSchema: processDataSchema,
    coreView: memo((object: PackageObject) => coreView(object, variablesOf(workspace.package(object.package)))),
    schemaRef: (pkg, component, ref) => resolveSchemaRef(pkg, component, ref, schemaFiles),
  };
}

/** `compute` once per argument (an object: a package or an object of the workspace). */
function memo<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const known = new Map<K, V>();
  return (key) => {
    if (!known.has(key)) known.set(key, compute(key));
    return known.get(key)!;
  };
}
