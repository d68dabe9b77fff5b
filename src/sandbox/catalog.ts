/**
 * What a scenario's engine may see of the catalog: the objects visible from the package under test (its own and
 * its requires closure), the package settings, the installation variables, the calendars. Loose files (a process
 * with its calendar given as single files) form a catalog of their own.
 */
import type { InstallVariable, JsonSchema } from '../cel/index.js';
import type { ObjectKind } from '../model/kinds.js';
import type { PackageObject } from '../model/package.js';
import { processDataSchema } from '../process/index.js';
import type { Workspace } from '../model/workspace.js';
import { SandboxCalendar } from './calendar.js';
import { isRecord } from '../json/guards.js';

export class Catalog {
  private readonly calendars = new Map<string, SandboxCalendar>();

  constructor(
    private readonly find: (kind: ObjectKind, id: string) => PackageObject | undefined,
    /** `spec` of the package manifest (settings, variables); empty for loose files. */
    readonly manifest: Record<string, unknown> = {},
    /** The package's own objects (not those of its requires): the work rules a process scenario offers its tasks to. */
    private readonly own: readonly PackageObject[] = [],
  ) {}

  static forPackage(workspace: Workspace, pkg: string): Catalog {
    const manifest = workspace.package(pkg)?.manifest.value;
    const spec = isRecord(manifest) && isRecord(manifest.spec) ? manifest.spec : {};
    return new Catalog((kind, id) => workspace.lookup(pkg, kind, id), spec, workspace.package(pkg)?.objects);
  }

  static forLooseObjects(objects: readonly PackageObject[]): Catalog {
    return new Catalog((kind, id) => objects.find((object) => object.kind === kind && object.id === id), {}, objects);
  }

  object(kind: ObjectKind, id: string): PackageObject | undefined {
    return this.find(kind, id);
  }

  /** The package's own objects of a kind, in the order they were loaded. */
  ownObjects(kind: ObjectKind): PackageObject[] {
    return this.own.filter((object) => object.kind === kind);
  }

  spec(kind: ObjectKind, id: string): Record<string, unknown> | undefined {
    return this.find(kind, id)?.spec;
  }

  calendar(key: string): SandboxCalendar | undefined {
    let calendar = this.calendars.get(key);
    if (calendar === undefined) {
      const spec = this.spec('Calendar', key);
      if (spec === undefined) return undefined;
      calendar = new SandboxCalendar(key, spec);
      this.calendars.set(key, calendar);
    }
    return calendar;
  }

  /** JSON Schema of a process's data, with `spec.data: {$ref}` resolved to the referenced file. */
  dataSchema(process: PackageObject): JsonSchema | undefined {
    return processDataSchema(process);
  }

  get settingsSchema(): JsonSchema | undefined {
    const settings = this.manifest.settings;
    return isRecord(settings) && isRecord(settings.schema) ? settings.schema : undefined;
  }

  /** Settings as an administrator saved them: `saved` over the defaults of the settings schema. */
  settingsWith(saved: Record<string, unknown> = {}): Record<string, unknown> {
    return { ...defaultsOf(this.settingsSchema), ...saved };
  }

  /** The installation variables of the manifest, with the test's values over their defaults. */
  variables(values: Record<string, unknown> = {}): Record<string, InstallVariable> {
    const declared = isRecord(this.manifest.variables) ? this.manifest.variables : {};
    const out: Record<string, InstallVariable> = {};
    for (const [name, spec] of Object.entries(declared)) {
      const variable: InstallVariable = {};
      if (isRecord(spec)) {
        if (typeof spec.default === 'string') variable.default = spec.default;
        if (typeof spec.example === 'string') variable.example = spec.example;
        if (typeof spec.kind === 'string') variable.kind = spec.kind;
      }
      if (typeof values[name] === 'string') variable.value = values[name];
      out[name] = variable;
    }
    for (const [name, value] of Object.entries(values)) if (!(name in out) && typeof value === 'string') out[name] = { value };
    return out;
  }

  /** `${VARIABLE}` in a text (a principal of an assign chain), replaced by the installation variable's value. */
  substitute(text: string, variables: Readonly<Record<string, InstallVariable>>): string {
    return text.replace(/\$\{([A-Z][A-Z0-9_]*)\}/g, (whole, name: string) => this.variableValue(variables, name) ?? whole);
  }

  /** A variable's value as the core would substitute it (its value, else its default, else its example). */
  variableValue(variables: Readonly<Record<string, InstallVariable>>, name: string): string | undefined {
    const variable = variables[name];
    return variable?.value ?? variable?.default ?? variable?.example;
  }
}

function defaultsOf(schema: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  for (const [name, field] of Object.entries(properties)) {
    if (!isRecord(field)) continue;
    if ('default' in field) out[name] = field.default;
    else if (field.type === 'object') {
      const nested = defaultsOf(field);
      if (Object.keys(nested).length > 0) out[name] = nested;
    }
  }
  return out;
}
