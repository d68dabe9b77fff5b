/**
 * The environment of the `cp/1` profile: which variables an expression of a process or a view sees, their
 * types, and the functions beyond standard CEL (compat-core-cel.md §4). This module (with the others of
 * `src/cel/`) is the only place that knows the CEL library; the rest of the project talks to `createEnvironment`,
 * `checkExpression` and `evaluate`.
 *
 * Every process expression sees `data` (typed from `spec.data`), `event`, `step`, `task`, `stage.<id>`
 * (`completed`, `active`), `instance`, `milestone` (a map), `settings` (typed from the package settings schema,
 * every field nullable) and `cal.*`. `step.result` and `task.customFields` are typed in the output mappings of the
 * step that gives them; `compensated` exists inside `onCompensate`. View and component expressions see `data`
 * (fields of the source), `param.*` and `settings`; a view over a process also sees that process's variables and
 * the record's `id`, `status` and `slaState`. `extraVariables` adds or replaces names: the error bound by
 * `catch … as: <name>` — which shadows the package settings when named `settings`.
 */
import { Environment } from '@marcbachmann/cel-js';
import {
  BOOL, DYN, DYN_MAP, NULLABLE_INT, NULLABLE_STRING, OBJECT_TYPE_PREFIX, TIMESTAMP, isSelectable, objectShape, shapeOf,
  type CelShape, type JsonSchema,
} from './types.js';
import { CalendarNamespace, KeyedCalendarNamespace } from './calendar.js';
import { LIBRARY_TYPE_NAMES, registerProfileFunctions, SYNC } from './functions.js';

export interface Profile {
  kind: 'process' | 'view';
  /** JSON Schema of the data (`spec.data` of a process, the source process's data for a view), `$ref`s to files resolved. */
  data?: JsonSchema;
  /** The package settings schema (`spec.settings.schema` of the manifest); absent when the package declares none. */
  settings?: JsonSchema;
  /** The package whose settings are read, for the message when it declares none; absent outside a package. */
  settingsPackage?: string;
  /** Stage ids of the process (`stage.<id>.completed`). Without them `stage` is an untyped map. */
  stages?: readonly string[];
  /** The process names `spec.calendar`: the `cal.*` forms without a calendar key exist. */
  calendar?: boolean;
  /** What the step an output mapping belongs to gives: `step.result` and `task.customFields`; 'none' hides `step`. */
  step?: { result?: JsonSchema; customFields?: JsonSchema } | 'none';
  /** Inside `onCompensate`: the result of the step being compensated (`compensated.result`). */
  compensated?: { result?: JsonSchema };
  /** Views and components: their params (`param.<name>`), each typed by its JSON Schema. */
  params?: Readonly<Record<string, JsonSchema>>;
  /** More variables, or replacements of the profile's own (`catch … as: settings`). */
  extraVariables?: Readonly<Record<string, JsonSchema>>;
  /** Views: whether aggregates `count()`, `sum(x)`, `avg(x)`, `min(x)`, `max(x)` are allowed (metrics and chart blocks). */
  aggregates?: boolean;
}

/** A prepared environment. Build one per distinct profile and reuse it: it caches every expression it checked. */
export interface CelEnvironment {
  readonly profile: Profile;
  /** Shape of each variable, by name. */
  readonly variables: ReadonlyMap<string, CelShape>;
  /** Whether `settings` is the package settings here (and not a name bound by `catch … as: settings`). */
  readonly settingsAreSettings: boolean;
  /** @internal the CEL library's environment */
  readonly cel: Environment;
  /** @internal object types registered for shapes, for evaluation and for hints */
  readonly objectTypes: ReadonlyMap<CelShape, ObjectType>;
  /** @internal the same environment with `settings` untyped: a type error that passes there is the settings' fault */
  untypedSettings(): CelEnvironment;
}

/** A CEL object type made for an object shape: its name, field names and the class its values are instances of. */
export interface ObjectType {
  name: string;
  /** The CEL path it types, as messages name it (`data.purchase`). */
  path: string;
  fields: readonly string[];
  make(fields: Record<string, unknown>): object;
}

const OPTIONS = { enableOptionalTypes: true, homogeneousAggregateLiterals: false, unlistedVariablesAreDyn: false };

let base: Environment | undefined;

/** Functions shared by every environment; built once, then cloned (a clone is cheap, a fresh environment is not). */
function baseEnvironment(): Environment {
  if (base === undefined) {
    base = new Environment(OPTIONS);
    registerProfileFunctions(base);
  }
  return base;
}

/** The triggering event: no `source`, no `observation` — an observation's kind and source are not readable. */
const EVENT_SHAPE = objectShape('event', {
  id: NULLABLE_STRING, type: NULLABLE_STRING, time: TIMESTAMP, entityType: NULLABLE_STRING, entityId: NULLABLE_STRING,
  actorId: NULLABLE_STRING, correlationId: NULLABLE_STRING, payload: DYN_MAP,
});

const INSTANCE_SHAPE = objectShape('instance', { id: NULLABLE_STRING, key: NULLABLE_STRING, version: NULLABLE_INT, startedAt: TIMESTAMP, clock: TIMESTAMP });

const ARTIFACT_SHAPE = objectShape('task.artifacts', { id: NULLABLE_STRING, type: NULLABLE_STRING, name: NULLABLE_STRING, metadata: DYN_MAP });

/** The fields of the core's TaskOut; `customFields` is typed where the task type is known. */
function taskShape(customFields: JsonSchema | undefined): CelShape {
  const text = Object.fromEntries(
    ['id', 'publicId', 'typeKey', 'title', 'description', 'status', 'systemStatusCategory', 'priority', 'ownerId', 'assigneeId', 'workspaceId', 'goalId']
      .map((name) => [name, NULLABLE_STRING]),
  );
  const fields = customFields === undefined ? DYN_MAP : shapeOf(customFields, 'task.customFields');
  return objectShape('task', {
    ...text, typeVersion: NULLABLE_INT, startDate: TIMESTAMP, dueDate: TIMESTAMP, createdAt: TIMESTAMP, completedAt: TIMESTAMP,
    customFields: fields, artifacts: { kind: 'map', values: ARTIFACT_SHAPE }, verification: DYN_MAP,
  });
}

function stepShape(name: string, result: JsonSchema | undefined): CelShape {
  return objectShape(name, {
    id: NULLABLE_STRING, skill: NULLABLE_STRING, status: NULLABLE_STRING,
    // Untyped, the core declares map(string, dyn); dyn also takes the list a collect table gives in the engine.
    result: result === undefined ? DYN : shapeOf(result, `${name}.result`),
    error: objectShape(`${name}.error`, { code: NULLABLE_STRING, message: NULLABLE_STRING }),
  });
}

/** With every stage id a CEL name, `stage` is a message (`stage.revew` is an error); else a map (`stage["prep-docs"]`). */
function stageShape(stages: readonly string[] | undefined): CelShape {
  if (stages === undefined || stages.length === 0 || !stages.every(isSelectable)) return DYN_MAP;
  const state = objectShape('stage.state', { completed: BOOL, active: BOOL });
  return objectShape('stage', Object.fromEntries(stages.map((id) => [id, state])));
}

/** Variables of a process, also seen by a view over a process. */
function processVariables(profile: Profile, shapes: Map<string, CelShape>): void {
  shapes.set('event', EVENT_SHAPE);
  if (profile.step !== 'none') shapes.set('step', stepShape('step', profile.step?.result));
  shapes.set('task', taskShape(profile.step === 'none' ? undefined : profile.step?.customFields));
  shapes.set('stage', stageShape(profile.stages));
  shapes.set('instance', INSTANCE_SHAPE);
  shapes.set('milestone', DYN_MAP);
  if (profile.compensated !== undefined) shapes.set('compensated', stepShape('compensated', profile.compensated.result));
}

/** Shapes of the variables a profile declares, in the order they are registered. */
function variableShapes(profile: Profile): Map<string, CelShape> {
  const shapes = new Map<string, CelShape>();
  shapes.set('data', profile.data === undefined ? DYN_MAP : shapeOf(profile.data, 'data'));
  shapes.set('settings', profile.settings === undefined ? DYN_MAP : shapeOf(profile.settings, 'settings', { ignoreRequired: true }));
  if (profile.kind === 'process') {
    processVariables(profile, shapes);
  } else {
    const params = Object.entries(profile.params ?? {}).map(([name, schema]) => [name, shapeOf(schema, `param.${name}`)] as const);
    shapes.set('param', params.length === 0 || !params.every(([name]) => isSelectable(name)) ? DYN_MAP : objectShape('param', Object.fromEntries(params)));
    if (profile.stages !== undefined) processVariables({ ...profile, step: undefined }, shapes);
  }
  for (const [name, schema] of Object.entries(profile.extraVariables ?? {})) {
    // `optional`, `cel`, `strings` name functions of every environment: a catch cannot rebind them.
    if (!baseEnvironment().hasVariable(name)) shapes.set(name, shapeOf(schema, name));
  }
  return shapes;
}

/** Build the environment of a profile. Pure: no file is read; `$ref`s to files must already be resolved. */
export function createEnvironment(profile: Profile): CelEnvironment {
  const cel = baseEnvironment().clone(OPTIONS);
  const variables = variableShapes(profile);
  const registrar = new TypeRegistrar(cel);
  for (const [name, shape] of variables) cel.registerVariable(name, registrar.typeName(shape));
  if (profile.kind === 'process' && !variables.has('cal')) {
    cel.registerVariable('cal', profile.calendar === true ? CalendarNamespace.typeName : KeyedCalendarNamespace.typeName);
  }
  if (profile.kind === 'view' && profile.aggregates === true) registerAggregates(cel);
  let untyped: CelEnvironment | undefined;
  return {
    profile,
    variables,
    settingsAreSettings: !Object.hasOwn(profile.extraVariables ?? {}, 'settings'),
    cel,
    objectTypes: registrar.objectTypes,
    untypedSettings: () => (untyped ??= createEnvironment({ ...profile, settings: {} })),
  };
}

function registerAggregates(cel: Environment): void {
  // Aggregates run over the records of the source in the core; locally they only need to type-check.
  const unsupported = () => {
    throw new Error('aggregates are computed by the core over the records of the source');
  };
  cel.registerFunction('count(): int', unsupported, SYNC);
  for (const name of ['sum', 'avg', 'min', 'max']) cel.registerFunction(`${name}(dyn): double`, unsupported, SYNC);
}

/** The library's name of each scalar; a nullable one is `dyn<…>`, which compares with null and computes as the scalar. */
function scalarTypeName(shape: Extract<CelShape, { kind: 'int' | 'uint' | 'double' | 'bool' | 'string' }>): string {
  return shape.nullable === true ? `dyn<${shape.kind}>` : shape.kind;
}

/** Registers one closed CEL object type per message shape, each comparable with null. */
class TypeRegistrar {
  readonly objectTypes = new Map<CelShape, ObjectType>();
  private readonly used = new Set<string>();
  private readonly comparable = new Set<string>();

  constructor(private readonly cel: Environment) {}

  typeName(shape: CelShape): string {
    switch (shape.kind) {
      case 'timestamp':
      case 'duration':
        return LIBRARY_TYPE_NAMES[shape.kind]!;
      case 'list':
        return this.nullable(`list<${this.typeName(shape.items)}>`);
      case 'map':
        return `map<string, ${this.typeName(shape.values)}>`;
      case 'object':
        return this.objectType(shape).name;
      case 'dyn':
        return 'dyn';
      default:
        return scalarTypeName(shape);
    }
  }

  private objectType(shape: Extract<CelShape, { kind: 'object' }>): ObjectType {
    const known = this.objectTypes.get(shape);
    if (known !== undefined) return known;
    const path = shape.name.replaceAll('[]', '');
    const name = this.uniqueName(path);
    const fields: Record<string, string> = {};
    for (const [field, fieldShape] of shape.fields) fields[field] = this.typeName(fieldShape);
    // A class per type: the library tells object types apart by their constructor.
    const ctor = { [name]: class { } }[name]!;
    this.cel.registerType(name, { ctor, fields });
    this.nullable(name);
    const type: ObjectType = {
      name,
      path,
      fields: [...shape.fields.keys()],
      make: (values) => Object.assign(new ctor(), values),
    };
    this.objectTypes.set(shape, type);
    return type;
  }

  /**
   * A field of a message compares with null (it reads its default when unset). The library can declare that for
   * messages and lists; a map's type name does not fit its operator declarations.
   */
  private nullable(name: string): string {
    if (!this.comparable.has(name) && !name.includes(',')) {
      this.comparable.add(name);
      this.cel.registerOperator(`${name} == null`, (a: unknown, b: unknown) => a === b);
    }
    return name;
  }

  private uniqueName(path: string): string {
    const stem = OBJECT_TYPE_PREFIX + path.replace(/[^A-Za-z0-9_.]/g, '_');
    let name = stem;
    for (let n = 2; this.used.has(name); n++) name = `${stem}_${n}`;
    this.used.add(name);
    return name;
  }
}
