/**
 * The environment of the `taimen/1` profile: which variables an expression of a process or a view sees, their
 * types, and the functions beyond standard CEL. This module (with the others of `src/cel/`) is the only place
 * that knows the CEL library; the rest of the project talks to `createEnvironment`, `checkExpression` and
 * `evaluate`.
 *
 * Process expressions see `data` (typed from `spec.data`), `event`, `step` (`result`, `error`), `task`,
 * `stage.<id>` (`completed`, `active`), `milestone.<id>`, `instance`, `settings` (typed from the package
 * settings schema) and `cal.*`. View and component expressions see `data` (fields of the source), `param.*` and
 * `settings`. `extraVariables` adds or replaces names: the error bound by `catch … as: <name>`, or the fields of
 * a view's source record — an extra variable named `settings` shadows the package settings.
 */
import { Environment } from '@marcbachmann/cel-js';
import {
  BOOL, DYN, DYN_MAP, INT, OBJECT_TYPE_PREFIX, STRING, TIMESTAMP, objectShape, shapeOf,
  type CelShape, type JsonSchema,
} from './types.js';
import { CalendarNamespace } from './calendar.js';
import { LIBRARY_TYPE_NAMES, registerProfileFunctions, SYNC } from './functions.js';

export interface Profile {
  kind: 'process' | 'view';
  /** JSON Schema of the data (`spec.data` of a process, the source process's data for a view), `$ref`s to files resolved. */
  data?: JsonSchema;
  /** The package settings schema (`spec.settings.schema` of the manifest); absent when the package declares none. */
  settings?: JsonSchema;
  /** Stage ids of the process (`stage.<id>.completed`). Without them `stage` is an untyped map. */
  stages?: readonly string[];
  /** Milestone ids of the process (`milestone.<id>`). */
  milestones?: readonly string[];
  /** The result of the step an expression belongs to (a human step's form, a decision table's outputs); 'none' hides `step`. */
  step?: { result?: JsonSchema } | 'none';
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
}

/** A CEL object type made for an object shape: its name, field names and the class its values are instances of. */
export interface ObjectType {
  name: string;
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

const ERROR_SHAPE = objectShape({ type: STRING, title: STRING, status: INT, detail: STRING, instance: STRING }, true);

const INSTANCE_SHAPE = objectShape({ id: STRING, key: STRING, version: INT, startedAt: TIMESTAMP, clock: TIMESTAMP });

/** Documented fields of the triggering event and of the task; both carry more, so the objects are open. */
const EVENT_SHAPE = objectShape({ type: STRING, time: TIMESTAMP, payload: DYN, actorId: STRING, source: STRING }, true);
const TASK_SHAPE = objectShape({ id: STRING, assigneeId: STRING, customFields: DYN_MAP }, true);

function stageShape(stages: readonly string[] | undefined): CelShape {
  if (stages === undefined) return DYN_MAP;
  const state = objectShape({ completed: BOOL, active: BOOL });
  return objectShape(Object.fromEntries(stages.map((id) => [id, state])));
}

function milestoneShape(milestones: readonly string[] | undefined): CelShape {
  return milestones === undefined ? DYN_MAP : objectShape(Object.fromEntries(milestones.map((id) => [id, BOOL])));
}

function stepShape(step: Profile['step']): CelShape | undefined {
  if (step === 'none') return undefined;
  return objectShape({ result: step?.result === undefined ? DYN : shapeOf(step.result), error: ERROR_SHAPE });
}

function dataShape(data: JsonSchema | undefined): CelShape {
  return data === undefined ? DYN_MAP : shapeOf(data);
}

/** Shapes of the variables a profile declares, in the order they are registered. */
function variableShapes(profile: Profile): Map<string, CelShape> {
  const shapes = new Map<string, CelShape>();
  shapes.set('data', dataShape(profile.data));
  shapes.set('settings', profile.settings === undefined ? objectShape({}) : shapeOf(profile.settings));
  if (profile.kind === 'process') {
    shapes.set('event', EVENT_SHAPE);
    const step = stepShape(profile.step);
    if (step !== undefined) shapes.set('step', step);
    shapes.set('task', TASK_SHAPE);
    shapes.set('stage', stageShape(profile.stages));
    shapes.set('milestone', milestoneShape(profile.milestones));
    shapes.set('instance', INSTANCE_SHAPE);
  } else {
    const params = Object.entries(profile.params ?? {}).map(([name, schema]) => [name, shapeOf(schema)] as const);
    shapes.set('param', objectShape(Object.fromEntries(params)));
  }
  for (const [name, schema] of Object.entries(profile.extraVariables ?? {})) shapes.set(name, shapeOf(schema));
  return shapes;
}

/** Build the environment of a profile. Pure: no file is read; `$ref`s to files must already be resolved. */
export function createEnvironment(profile: Profile): CelEnvironment {
  const cel = baseEnvironment().clone(OPTIONS);
  const variables = variableShapes(profile);
  const registrar = new TypeRegistrar(cel);
  for (const [name, shape] of variables) cel.registerVariable(name, registrar.typeName(shape, name));
  if (profile.kind === 'process' && !variables.has('cal')) cel.registerVariable('cal', CalendarNamespace.typeName);
  if (profile.kind === 'view' && profile.aggregates === true) registerAggregates(cel);
  return {
    profile,
    variables,
    settingsAreSettings: !Object.hasOwn(profile.extraVariables ?? {}, 'settings'),
    cel,
    objectTypes: registrar.objectTypes,
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

/**
 * Registers one closed CEL object type per object shape. Open objects (`additionalProperties`) are maps to the
 * library, since its object types reject undeclared names.
 */
class TypeRegistrar {
  readonly objectTypes = new Map<CelShape, ObjectType>();
  private readonly used = new Set<string>();

  constructor(private readonly cel: Environment) {}

  typeName(shape: CelShape, path: string): string {
    switch (shape.kind) {
      case 'timestamp':
      case 'duration':
        return LIBRARY_TYPE_NAMES[shape.kind];
      case 'list':
        return `list<${this.typeName(shape.items, `${path}.item`)}>`;
      case 'map':
        return `map<string, ${this.typeName(shape.values, `${path}.value`)}>`;
      case 'object':
        return shape.open ? 'map<string, dyn>' : this.objectType(shape, path).name;
      default:
        return shape.kind;
    }
  }

  private objectType(shape: Extract<CelShape, { kind: 'object' }>, path: string): ObjectType {
    const known = this.objectTypes.get(shape);
    if (known !== undefined) return known;
    const name = this.uniqueName(path);
    const fields: Record<string, string> = {};
    for (const [field, fieldShape] of shape.fields) fields[field] = this.typeName(fieldShape, `${path}.${field}`);
    // A class per type: the library tells object types apart by their constructor.
    const ctor = { [name]: class { } }[name];
    this.cel.registerType(name, { ctor, fields });
    const type: ObjectType = {
      name,
      fields: [...shape.fields.keys()],
      make: (values) => Object.assign(new ctor(), values),
    };
    this.objectTypes.set(shape, type);
    return type;
  }

  private uniqueName(path: string): string {
    const stem = OBJECT_TYPE_PREFIX + path.replace(/[^A-Za-z0-9_.-]/g, '_');
    let name = stem;
    for (let n = 2; this.used.has(name); n++) name = `${stem}_${n}`;
    this.used.add(name);
    return name;
  }
}
