/**
 * Screens of a package (compat-package-sdk-check.md §2.9): Views and Components against view.schema.json in
 * the reference's codes, what they name (sources, roles, views, components, skills, param schemas),
 * aggregates outside metrics, and the messages they show against the dictionaries.
 */
import { forEachAt } from '../../json/walk.js';
import { parseSyntax, walkSyntax } from '../../cel/syntax.js';
import { viewExpressions } from '../../cel/view-fields.js';
import type { SourceDocument } from '../../json/document.js';
import { childPointer, pointerSegments, valueAt } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { Finding } from '../../model/finding.js';
import type { Package, PackageObject } from '../../model/package.js';
import { defineRule } from '../rule.js';
import { hasScreensOrLocales, isMessageKey, type LocaleDictionary } from '../facts/locales.js';
import type { SchemaRefFailure } from '../facts/index.js';
import { isRecord } from '../../json/guards.js';

const KEY_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';
/** The task type every tenant has; no package declares it. */
const SYSTEM_TASK_TYPE = 'task';
/** Functions over all the records of a source (`environment.ts` registers them for metrics and chart). */
const AGGREGATES: ReadonlySet<string> = new Set(['count', 'sum', 'avg', 'min', 'max']);

/** What is wrong with the shape of a View or Component: a schema error as stage 1 words it, or one we word. */
type ShapeMistake =
  | { reason: 'schema'; message: string }
  | { reason: 'key'; kind: string; key: string }
  | { reason: 'nav-group'; group: string; allowed: string }
  | { reason: 'param-ref'; name: string; ref: string; local: boolean };

function shapeMessage(d: ShapeMistake): string {
  switch (d.reason) {
    case 'schema':
      return d.message;
    case 'key':
      return `the key of a ${d.kind} matches ${KEY_PATTERN} — '${d.key}' does not`;
    case 'nav-group':
      return `nav.group '${d.group}' is not a group of the console menu (${d.allowed}); a group is not a key of the dictionaries`;
    case 'param-ref':
      return `params.${d.name}.schema.$ref '${d.ref}' is ${d.local ? 'local to the component' : 'remote'}; a param schema $ref names a file of the package: <file>#<pointer>`;
  }
}

function isScreen(object: PackageObject): boolean {
  return object.kind === 'View' || object.kind === 'Component';
}

/**
 * The schema of screens in the reference's codes: stage-1 findings of Views and Components come here
 * (`ownsSchemaOf`) and are reported as unknown_block, unknown_format, invalid_source,
 * component_code_not_supported or invalid_view/invalid_component, at the same place.
 */
export const screenShapes = defineRule({
  id: 'screens/shapes',
  description: 'Views and Components have the shape of view.schema.json, with the blocks and formats of version 1.',
  ownsSchemaOf: ['View', 'Component'],
  codes: {
    invalid_view: {
      severity: 'error',
      summary: 'A View does not match view.schema.json (its key, nav.group, fields of its blocks, …).',
      message: shapeMessage,
    },
    invalid_component: {
      severity: 'error',
      summary: 'A Component does not match view.schema.json, or a param schema $ref is local (#…) or remote.',
      message: shapeMessage,
    },
    unknown_block: {
      severity: 'error',
      summary: 'A layout block is none of the blocks of version 1.',
      message: (d: { block: string; allowed: string }) => `block '${d.block}' is not a block of version 1 (${d.allowed})`,
    },
    unknown_format: {
      severity: 'error',
      summary: 'A value format is none of the formats of version 1.',
      message: (d: { format: string; allowed: string }) => `format '${d.format}' is not a format of version 1 (${d.allowed})`,
    },
    invalid_source: {
      severity: 'error',
      summary: 'A view source is exactly one of process, tasks, knowledge; filter and instance (not both) only with a process.',
      message: (d: { message: string }) => `invalid source: ${d.message.charAt(0).toLowerCase()}${d.message.slice(1)}`,
    },
    component_code_not_supported: {
      severity: 'error',
      summary: 'A Component is described by its layout: spec.code is not supported.',
      message: () => 'a component is described by its layout blocks; code (spec.code) is not supported',
    },
    nested_component: {
      severity: 'error',
      summary: 'A Component does not contain a component block: components do not nest.',
      message: (d: { component: string }) => `a component block inside Component '${d.component}' — components do not nest`,
    },
  },
  check(context) {
    for (const object of context.workspace.objects()) {
      if (!isScreen(object)) continue;
      let sourceReported = false; // one wrong source is one mistake, however many members it breaks
      for (const finding of context.schemaFindings(object.document)) {
        const place = { document: object.document, pointer: finding.path, part: reportedAtKey(object.document, finding) ? 'key' as const : 'value' as const };
        const hint = finding.hint ? { hint: finding.hint } : {};
        const value = valueAt(object.document.value, finding.path);
        const atValue = place.part === 'value' && typeof value === 'string';
        const code = object.kind === 'View' ? 'invalid_view' : 'invalid_component';
        if (finding.path === '/key') {
          const key = suggestedScreenKey(object.key);
          context.report(code, place, { reason: 'key', kind: object.kind, key: object.key }, key ? { hint: `did you mean '${key}'?` } : {});
        } else if (object.kind === 'Component' && finding.path === '/spec/code') {
          context.report('component_code_not_supported', place, undefined, { hint: 'describe the component with layout blocks' });
        } else if (atValue && /^\/spec\/layout\/\d+\/block$/.test(finding.path)) {
          context.report('unknown_block', place, { block: value, allowed: allowedValues(finding) }, hint);
        } else if (atValue && finding.path.endsWith('/format')) {
          context.report('unknown_format', place, { format: value, allowed: allowedValues(finding) }, hint);
        } else if (isSourceShape(finding.path, place.part)) {
          if (!sourceReported) context.report('invalid_source', place, { message: finding.message }, hint);
          sourceReported = true;
        } else if (finding.path === '/spec/nav/group' && atValue) {
          context.report(code, place, { reason: 'nav-group', group: value, allowed: allowedValues(finding) }, hint);
        } else {
          context.report(code, place, { reason: 'schema', message: finding.message }, hint);
        }
      }
    }
    for (const component of context.objects('Component')) {
      eachBlock(component, (block, pointer) => {
        if (block.block === 'component') context.report('nested_component', { document: component.document, pointer }, { component: component.key }, {
          hint: 'put the blocks of the inner component here, or place both components in the view',
        });
      });
      for (const param of schemaRefs(component)) {
        if (param.ref.startsWith('#') || param.ref.includes('://')) {
          const mistake = { reason: 'param-ref' as const, name: param.name, ref: param.ref, local: param.ref.startsWith('#') };
          context.report('invalid_component', { document: component.document, pointer: param.pointer }, mistake, {
            hint: 'keep the schema in a file of the package (schemas/…) and write $ref: ../schemas/<file>#/<pointer>',
          });
        }
      }
    }
  },
});

/** What Views and Components name: sources, audience roles, views to open, components, skills, param schemas. */
export const screenReferences = defineRule({
  id: 'screens/references',
  description: 'What a screen names — its source, audience roles, views, components, skills and param schemas — exists.',
  codes: {
    unknown_source: {
      severity: 'error',
      summary: 'A view source names a Process (or a TaskType for tasks) that is not in the package or its requires.',
      message: (d: { field: string; kind: string; id: string; pkg: string }) => `${d.field} '${d.id}' — no such ${d.kind} in package ${d.pkg} or its requires`,
    },
    unknown_role: {
      severity: 'warning',
      summary: 'An audience role of a view is declared neither in the package nor in its requires: it must already exist in the tenant.',
      message: (d: { id: string; pkg: string }) => `audience role '${d.id}' — no such Role in package ${d.pkg} or its requires; it must already exist in the tenant`,
    },
    unknown_view: {
      severity: 'error',
      summary: 'open.view names a View that is not in the package or its requires.',
      message: (d: { id: string; pkg: string }) => `open.view '${d.id}' — no such View in package ${d.pkg} or its requires`,
    },
    unknown_component: {
      severity: 'error',
      summary: 'A component block names no Component of the same package.',
      message: (d: { id: string; pkg: string }) => `component '${d.id}' — no such Component in package ${d.pkg} (a view uses the components of its own package)`,
    },
    unknown_skill: {
      severity: 'error',
      summary: 'A skill reference (name@version) names no Skill of the package or its requires.',
      message: (d: { id: string; pkg: string }) => `invoke.skill '${d.id}' — no such Skill (name@version) in package ${d.pkg} or its requires`,
    },
    skill_output_missing: {
      severity: 'error',
      summary: 'An invoke block names a skill without an output schema (contract.outputs or outputSchema): the screen has nothing to show of its result (the core refuses it at plan).',
      message: (d: { id: string }) => `invoke.skill '${d.id}' declares no output schema — a screen shows what a skill gives, so it needs contract.outputs or outputSchema`,
    },
    unresolved_schema_ref: {
      severity: 'error',
      summary: 'A component param schema $ref names a file of the package and, after #, a JSON Pointer to a schema object in it.',
      message: schemaRefMessage,
    },
  },
  check(context) {
    for (const object of context.objects()) {
      if (!isScreen(object)) continue;
      const pkg = object.package;
      const at = (pointer: string) => ({ document: object.document, pointer });
      if (object.kind === 'View') {
        for (const source of sourceReferences(object)) {
          if (context.lookup(pkg, source.kind, source.id) !== undefined || (source.kind === 'TaskType' && source.id === SYSTEM_TASK_TYPE)) continue;
          const hint = context.suggest(pkg, source.kind, source.id);
          context.report('unknown_source', at(source.pointer), { field: source.field, kind: source.kind, id: source.id, pkg }, hint ? { hint } : {});
        }
        forEachAt(object.spec, ['audience', 'roles', '*'], '/spec', (role, pointer) => {
          if (typeof role !== 'string' || context.lookup(pkg, 'Role', role) !== undefined) return;
          const hint = context.suggest(pkg, 'Role', role);
          context.report('unknown_role', at(pointer), { id: role, pkg }, hint ? { hint } : {});
        });
      }
      eachBlock(object, (block, pointer) => {
        forEachAt(block, ['open', 'view'], pointer, (view, where) => {
          if (typeof view !== 'string' || context.lookup(pkg, 'View', view) !== undefined) return;
          const hint = context.suggest(pkg, 'View', view);
          context.report('unknown_view', at(where), { id: view, pkg }, hint ? { hint } : {});
        });
        if (object.kind === 'View' && block.block === 'component' && typeof block.component === 'string') {
          const own = (context.workspace.package(pkg)?.objects ?? []).filter((o) => o.kind === 'Component').map((o) => o.key);
          if (!own.includes(block.component)) {
            const hint = didYouMean(block.component, own);
            context.report('unknown_component', at(childPointer(pointer, 'component')), { id: block.component, pkg }, hint ? { hint } : {});
          }
        }
        if (block.block === 'invoke' && typeof block.skill === 'string' && !isTemplate(block.skill)) {
          const skill = context.lookup(pkg, 'Skill', block.skill);
          const hint = skill === undefined ? context.suggest(pkg, 'Skill', block.skill) : undefined;
          if (skill === undefined) context.report('unknown_skill', at(childPointer(pointer, 'skill')), { id: block.skill, pkg }, hint ? { hint } : {});
          else if (!hasOutputSchema(skill)) {
            context.report('skill_output_missing', at(childPointer(pointer, 'skill')), { id: block.skill }, { hint: `declare the outputs of ${skill.ref}` });
          }
        }
      });
      if (object.kind !== 'Component') continue;
      const owner = context.workspace.package(pkg);
      for (const param of schemaRefs(object)) {
        if (param.ref.startsWith('#') || param.ref.includes('://') || owner === undefined) continue;
        const resolved = context.facts.schemaRef(owner, object, param.ref);
        if ('reason' in resolved) context.report('unresolved_schema_ref', at(param.pointer), { name: param.name, ref: param.ref, ...resolved }, {
          hint: 'point it at a schema object in a file of the package, e.g. ../schemas/<file>.json#/$defs/<name>',
        });
      }
    }
  },
});

/** Aggregates over the records of the source belong to metrics and chart blocks, and every value there is one. */
export const screenAggregates = defineRule({
  id: 'screens/aggregates',
  description: 'count, sum, avg, min and max appear only in the values of metrics and chart blocks, and each value there aggregates.',
  codes: {
    aggregate_outside_metrics: {
      severity: 'error',
      summary: 'Aggregates (count, sum, avg, min, max) belong to metrics and chart blocks only.',
      message: (d: { name: string }) => `${d.name}() aggregates the records of the source — only metrics and chart blocks show aggregates`,
    },
    invalid_aggregate: {
      severity: 'error',
      summary: 'A value of a metrics or chart block aggregates nothing: each one is over all the records (count, sum, avg, min, max).',
      message: (d: { value: string }) => `'${d.value}' is a value of one record — a metrics or chart block shows aggregates over the records of its source`,
    },
  },
  check(context) {
    for (const object of context.objects()) {
      if (!isScreen(object)) continue;
      for (const expression of viewExpressions(object.spec)) {
        if (expression.aggregates) {
          if (!isOneAggregate(expression.source)) {
            context.report('invalid_aggregate', { document: object.document, pointer: expression.pointer }, { value: expression.source }, {
              hint: 'e.g. count(), sum(data.amount), avg(data.amount)',
            });
          }
          continue;
        }
        if (!expression.source.includes('(')) continue;
        for (const call of aggregateCalls(expression.source)) {
          context.report('aggregate_outside_metrics', { document: object.document, pointer: expression.pointer, offset: call.start, length: call.name.length }, { name: call.name }, {
            hint: 'show it in a metrics or chart block; here write an expression over one record',
          });
        }
      }
    }
  },
});

/** Every message a screen shows exists in every dictionary, and every message of a dictionary is shown. */
export const screenMessages = defineRule({
  id: 'screens/messages',
  description: 'Every message key a screen shows is in each dictionary, and each dictionary key is shown somewhere.',
  codes: {
    missing_message: {
      severity: 'error',
      summary: 'A message key a screen shows (its titles and labels, or the default label <package>.fields.<path>) is missing in a dictionary of a declared locale.',
      message: (d: { key: string; files: string; path?: string }) =>
        d.path === undefined ? `message '${d.key}' is missing in ${d.files}` : `the default label '${d.key}' of ${d.path} is missing in ${d.files}`,
    },
    unused_message: {
      severity: 'warning',
      summary: 'A dictionary key is shown by no view or component (nor is it a settings label).',
      message: (d: { key: string }) => `message '${d.key}' is shown by no view or component`,
    },
  },
  check(context) {
    const valid = new Set(context.objects());
    for (const pkg of context.packages()) {
      if (!hasScreensOrLocales(pkg)) continue;
      const locales = context.facts.locales(pkg) ?? [];
      const all = context.facts.dictionaries(pkg);
      const dictionaries = locales.map((d) => all.get(d.locale)).filter((d): d is LocaleDictionary => d !== undefined);
      const screens = pkg.objects.filter(isScreen);
      const used = new UsedMessages(pkg);
      const checked = new Set<string>();
      for (const screen of screens.filter((s) => valid.has(s))) {
        for (const shown of shownMessages(screen, pkg.key)) {
          if (checked.has(shown.key)) continue; // a key missing in two places is one mistake, reported at the first
          checked.add(shown.key);
          used.add(shown.key);
          const missing = dictionaries.filter((d) => !Object.hasOwn(d.messages, shown.key));
          if (missing.length === 0) continue;
          const files = missing.map((d) => `i18n/${d.dictionary.locale}.yaml`).join(', ');
          context.report('missing_message', { document: screen.document, pointer: shown.pointer }, { key: shown.key, files, ...(shown.path ? { path: shown.path } : {}) }, {
            hint: shown.path ? `add '${shown.key}' to ${files}, or give it a label` : `add '${shown.key}' to ${files}`,
          });
        }
        used.addScreen(screen);
      }
      // A screen that failed the schema shows messages we cannot know: no "unused" guesses then.
      if (screens.some((s) => !valid.has(s))) continue;
      for (const { dictionary, messages } of dictionaries) {
        for (const key of Object.keys(messages)) {
          if (used.has(key) || !isMessageKey(dictionary.document, key)) continue;
          context.report('unused_message', { document: dictionary.document, pointer: childPointer('', key), part: 'key' }, { key }, {
            hint: 'show it in a view or a component, or remove it',
          });
        }
      }
    }
  },
});

/** A message key a screen shows, where, and for a default label the path it labels. */
export interface ShownMessage {
  key: string;
  pointer: string;
  /** The source path whose default label `<package>.fields.<path>` this is. */
  path?: string;
}

/**
 * The message keys a View or Component shows: its title and description, block titles, sections and labels
 * (a header's title is a path, not a message), and the default label `<package>.fields.<path>` of each column,
 * field, filter and sort field that has no label of its own.
 */
export function shownMessages(screen: PackageObject, pkg: string): ShownMessage[] {
  const shown: ShownMessage[] = [];
  const key = (value: unknown, pointer: string) => {
    if (typeof value === 'string') shown.push({ key: value, pointer });
  };
  const byDefault = (path: unknown, pointer: string) => {
    if (typeof path === 'string') shown.push({ key: defaultLabel(pkg, screen, path), pointer, path });
  };
  if (screen.kind === 'View') key(screen.spec.title, '/spec/title');
  key(screen.spec.description, '/spec/description');
  eachBlock(screen, (block, pointer) => {
    if (block.block !== 'header') key(block.title, childPointer(pointer, 'title'));
    key(block.section, childPointer(pointer, 'section'));
    key(block.label, childPointer(pointer, 'label'));
    for (const path of [['columns', '*'], ['items', '*'], ['card', 'fields', '*']]) {
      forEachAt(block, path, pointer, (item, at) => {
        if (!isRecord(item)) return;
        if (item.label !== undefined) key(item.label, childPointer(at, 'label'));
        else if (block.block === 'metrics') key(item.title, childPointer(at, 'title'));
        else byDefault(item.field, childPointer(at, 'label'));
      });
    }
    forEachAt(block, ['filters', '*'], pointer, byDefault);
    forEachAt(block, ['sort', '*', 'field'], pointer, byDefault);
  });
  return shown;
}

/**
 * The dictionary keys a package shows: those its screens show, the default labels of the fields their
 * expressions and paths read, the keys under a filter's label (its values), and the settings labels.
 */
class UsedMessages {
  private readonly keys = new Set<string>();
  /** Keys under these (each ending in `.`) are used too. */
  private readonly prefixes = new Set<string>();

  constructor(private readonly pkg: Package) {
    this.keys.add(`${pkg.key}.title`);
    this.prefixes.add(`${pkg.key}.settings.`);
    const settings = (pkg.manifest.value as { spec?: { settings?: { uischema?: unknown } } } | null)?.spec?.settings;
    for (const label of stringsNamed(settings?.uischema, new Set(['label', 'text']))) this.keys.add(label);
  }

  add(key: string): void {
    this.keys.add(key);
  }

  has(key: string): boolean {
    if (this.keys.has(key)) return true;
    for (let dot = key.indexOf('.'); dot >= 0; dot = key.indexOf('.', dot + 1)) {
      if (this.prefixes.has(key.slice(0, dot + 1))) return true;
    }
    return false;
  }

  /** The fields a screen reads, by their default labels; the values of its filters, under theirs. */
  addScreen(screen: PackageObject): void {
    for (const expression of viewExpressions(screen.spec)) {
      for (const path of fieldReads(expression.source)) this.keys.add(`${this.pkg.key}.fields.${path.join('.')}`);
    }
    eachBlock(screen, (block, pointer) => {
      for (const path of [['columns', '*', 'field'], ['items', '*', 'field'], ['card', 'fields', '*', 'field'], ['card', 'title'], ['card', 'subtitle'], ['card', 'badge'], ['groupBy'], ['status'], ['sort', '*', 'field']]) {
        forEachAt(block, path, pointer, (field) => {
          if (typeof field === 'string') this.keys.add(defaultLabel(this.pkg.key, screen, field));
        });
      }
      if (block.block === 'header' && typeof block.title === 'string') this.keys.add(defaultLabel(this.pkg.key, screen, block.title));
      forEachAt(block, ['filters', '*'], pointer, (filter) => {
        if (typeof filter === 'string') this.prefixes.add(`${defaultLabel(this.pkg.key, screen, filter)}.`);
      });
    });
  }
}

/**
 * `<package>.fields.<path>`: the label of a path that has none of its own. A view over a process reads its
 * data as `data.<field>`, a component its params as `param.<name>`; the label leaves that root out.
 */
function defaultLabel(pkg: string, screen: PackageObject, path: string): string {
  const root = screen.kind === 'Component' ? 'param.' : isRecord(screen.spec.source) && screen.spec.source.process !== undefined ? 'data.' : undefined;
  return `${pkg}.fields.${root !== undefined && path.startsWith(root) ? path.slice(root.length) : path}`;
}

/** Calls `visit` with each mapping of `spec.layout` and its pointer. */
function eachBlock(screen: PackageObject, visit: (block: Record<string, unknown>, pointer: string) => void): void {
  forEachAt(screen.spec, ['layout', '*'], '/spec', (block, pointer) => {
    if (isRecord(block)) visit(block, pointer);
  });
}

/** The Process or TaskType a view's source names. */
function sourceReferences(view: PackageObject): { kind: 'Process' | 'TaskType'; id: string; pointer: string; field: string }[] {
  const out: { kind: 'Process' | 'TaskType'; id: string; pointer: string; field: string }[] = [];
  forEachAt(view.spec, ['source', 'process'], '/spec', (id, pointer) => {
    if (typeof id === 'string' && !isTemplate(id)) out.push({ kind: 'Process', id, pointer, field: 'source.process' });
  });
  forEachAt(view.spec, ['source', 'tasks', 'type'], '/spec', (id, pointer) => {
    if (typeof id === 'string' && !isTemplate(id)) out.push({ kind: 'TaskType', id, pointer, field: 'source.tasks.type' });
  });
  return out;
}

/** `params.<name>.schema.$ref` of a Component. */
function schemaRefs(component: PackageObject): { name: string; ref: string; pointer: string }[] {
  const out: { name: string; ref: string; pointer: string }[] = [];
  forEachAt(component.spec, ['params', '*', 'schema', '$ref'], '/spec', (ref, pointer) => {
    if (typeof ref === 'string') out.push({ name: pointerSegments(pointer)[2] ?? '', ref, pointer });
  });
  return out;
}

/** Why a param schema `$ref` names no schema object. */
function schemaRefMessage(d: { name: string; ref: string } & SchemaRefFailure): string {
  const head = `params.${d.name}.schema.$ref '${d.ref}'`;
  switch (d.reason) {
    case 'outside':
      return `${head} points outside the package`;
    case 'no-file':
      return `${head} — no such file in the package`;
    case 'not-loading':
      return `${head} — the file does not load: ${d.detail}`;
    case 'not-a-pointer':
      return `${head} has a fragment that is not a JSON Pointer: '#${d.fragment}' (write #/<path>)`;
    case 'nothing-at':
      return `${head} — ${d.file} has nothing at ${d.pointer}`;
    case 'not-an-object':
      return `${head} — ${d.pointer || 'the document'} in ${d.file} is not a schema object`;
  }
}



/** Stage 1 reports an unknown or misplaced field at its key: re-report it there. */
function reportedAtKey(document: SourceDocument, finding: Finding): boolean {
  const key = document.locate(finding.path, 'key');
  const value = document.locate(finding.path, 'value');
  return key.line === finding.line && key.column === finding.column && (value.line !== key.line || value.column !== key.column);
}

/**
 * A source that is not exactly one of process, tasks, knowledge (or has filter/instance where it may not): the
 * source itself is wrong, or one of its members is there that may not be.
 */
function isSourceShape(pointer: string, part: 'key' | 'value'): boolean {
  return pointer === '/spec/source' || (part === 'key' && /^\/spec\/source\/[^/]+$/.test(pointer));
}

/** The values an enum allows, from the stage-1 message (`"x" is not one of "a", "b"`). */
function allowedValues(finding: Finding): string {
  const list = / is not one of (.*)$/.exec(finding.message)?.[1];
  return list === undefined ? 'see view.schema.json' : list.replace(/"/g, '');
}

function suggestedScreenKey(key: string): string | undefined {
  const suggestion = key.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 63);
  return new RegExp(KEY_PATTERN).test(suggestion) ? suggestion : undefined;
}

function isTemplate(value: string): boolean {
  return value.includes('${') || value.includes('{{');
}

/** Every string under a member named in `names`, at any depth. */
function stringsNamed(value: unknown, names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isRecord(node)) {
      for (const [name, item] of Object.entries(node)) {
        if (names.has(name) && typeof item === 'string') out.push(item);
        else visit(item);
      }
    }
  };
  visit(value);
  return out;
}

/** A value of a metrics or chart block is exactly one aggregate call, as the core requires (`count() + 1` is not); an expression that does not parse is judged by the CEL rules. */
function isOneAggregate(source: string): boolean {
  const tree = parseSyntax(source);
  return tree === undefined || (tree.kind === 'call' && tree.receiver === undefined && AGGREGATES.has(tree.name));
}

/** A skill's output has a schema: its contract's outputs, or the outputSchema of a skill without a contract. */
function hasOutputSchema(skill: PackageObject): boolean {
  const contract = skill.spec.contract;
  return isRecord(contract) ? isRecord(contract.outputs) : isRecord(skill.spec.outputSchema);
}

/** The aggregate functions (`count(…)`, `sum(…)`, …) an expression calls, where their names are written. */
function aggregateCalls(source: string): { name: string; start: number }[] {
  const calls: { name: string; start: number }[] = [];
  const tree = parseSyntax(source);
  if (tree !== undefined) {
    walkSyntax(tree, (node) => {
      if (node.kind === 'call' && node.receiver === undefined && AGGREGATES.has(node.name)) calls.push({ name: node.name, start: node.start });
    });
  }
  return calls;
}

/** The source fields and params an expression reads, by path: `data.amount`, `param.invoice.supplier`, `data.?note`. */
function fieldReads(source: string): string[][] {
  const reads: string[][] = [];
  const tree = parseSyntax(source);
  if (tree !== undefined) {
    walkSyntax(tree, (node) => {
      const selected = node.kind === 'path' && node.selections.every((selection) => selection === '.' || selection === '.?');
      if (selected && (node.root === 'data' || node.root === 'param') && node.segments.length > 0) reads.push([...node.segments]);
    });
  }
  return reads;
}
