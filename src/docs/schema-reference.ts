/**
 * `package-sdk docs schema`: the field reference of schema/v1 as Markdown (docs/schema-reference.md),
 * section by section in the order of the reference page. Section titles and their introductions are
 * written here; every table is generated from the schema files.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { replaceFile } from '../fs/write.js';
import { SchemaReader, type DocDefinition, type JsonSchema, type SchemaFile } from './schema-model.js';

export interface DocSection {
  title: string;
  intro: string[];
  sources: string[];
  definitions: DocDefinition[];
}

/** Where the definitions of a section come from. */
interface SectionPlan {
  title: string;
  intro?: string[];
  file: string;
  /** object.schema.json: the first `$defs` entry of the section (it runs to the next section's first). */
  from?: string;
  /** The section also describes this whole file (KnowledgePack: knowledge-pack.schema.json). */
  alsoFile?: string;
}

const OBJECT = 'object.schema.json';

const SECTIONS: readonly SectionPlan[] = [
  {
    title: 'Object wrapper',
    intro: [
      'Every object file of a package — package.yaml, the catalog kind files, and the installation — is one wrapper apiVersion + kind + key + spec. The key type and the shape of spec depend on the kind (the "Conditions" table).',
    ],
    file: OBJECT,
    from: 'object',
  },
  { title: 'Package manifest (`kind: Package`)', file: OBJECT, from: 'packageSpec' },
  { title: 'Installation (`kind: Installation`)', file: OBJECT, from: 'installationSpec' },
  { title: 'Artifact type (`kind: ArtifactType`)', file: OBJECT, from: 'artifactTypeSpec' },
  { title: 'Task type (`kind: TaskType`)', file: OBJECT, from: 'taskTypeSpec' },
  { title: 'Project template (`kind: ProjectTemplate`)', file: OBJECT, from: 'projectTemplateSpec' },
  { title: 'Workspace type (`kind: WorkspaceType`)', file: OBJECT, from: 'workspaceTypeSpec' },
  { title: 'Role (`kind: Role`)', file: OBJECT, from: 'roleSpec' },
  { title: 'Capability (`kind: Capability`)', file: OBJECT, from: 'capabilitySpec' },
  { title: 'Connection type (`kind: ConnectionType`)', file: OBJECT, from: 'connectionTypeSpec' },
  { title: 'Skill (`kind: Skill`)', file: OBJECT, from: 'skillSpec' },
  { title: 'Work rule (`kind: WorkRule`)', file: OBJECT, from: 'workRuleSpec' },
  { title: 'Agent (`kind: Agent`)', file: OBJECT, from: 'agentSpec' },
  { title: 'Notification rule (`kind: NotificationRule`)', file: OBJECT, from: 'notificationRuleSpec' },
  { title: 'Process (`kind: Process`)', file: OBJECT, from: 'processSpec' },
  { title: 'Calendar (`kind: Calendar`)', file: OBJECT, from: 'calendarSpec' },
  {
    title: 'Ontology (`kind: KnowledgePack`)',
    intro: ['The ontology body is described by a separate schema file, knowledge-pack.schema.json; in a package, an integer version version is added to it.'],
    file: OBJECT,
    from: 'KnowledgePack.spec',
    alsoFile: 'knowledge-pack.schema.json',
  },
  { title: 'Common types', intro: ['Definitions referenced by several kinds.'], file: OBJECT, from: 'connectionKey' },
  { title: 'Package test (`tests/*.test.yaml`)', file: 'test.schema.json' },
  { title: 'Source lock (`packages.lock`)', intro: ['The file is written by package-sdk lock; it is not edited by hand.'], file: 'lock.schema.json' },
  {
    title: 'Installation plan (`plan --out`)',
    intro: ['The document is written by package-sdk plan --out; package-sdk apply --plan applies it only without edits.'],
    file: 'plan.schema.json',
  },
  { title: 'Upload template refinement (`templates/<kind>.yaml`)', file: 'knowledge-template.schema.json' },
  {
    title: 'Package screens (`kind: View`, `kind: Component`)',
    intro: [
      "Package screens live in views/*.yaml and components/*.yaml. Their wrapper is the same as for other objects; the spec of the View kind is described by viewSpec, and that of the Component kind by componentSpec; screen labels are keys of the i18n/<locale>.yaml dictionaries. The schema is a copy of the core's screen schema; package-sdk check and plan validate it.",
    ],
    file: 'view.schema.json',
  },
];

/** Files whose definitions are named bare (their names are unique across schema/v1). */
const BARE_FILES = new Set([OBJECT, 'test.schema.json', 'lock.schema.json', 'knowledge-template.schema.json']);

const INTRO = [
  'Field reference for all package files: the object wrapper, each catalog kind, package tests, source pinning in packages.lock, the installation plan, and screens. The tables are built from the JSON Schema schema/v1 and follow it field for field. This page is for package authors.',
  'The schema checks the shape of the description. The second stage — references between objects, expression types, unknown data fields, step reachability, gaps in decision tables — is performed by package-sdk check (see docs/findings.md).',
  'To connect the schema to an editor, add a line at the top of the object file:',
  '```yaml\n# yaml-language-server: $schema=<path to schema/v1/object.schema.json>\n```',
  'How to read the tables: "Type" is a JSON type or a reference to a definition below; array of is an array, map → is an object with arbitrary keys; "Conditions" lists fields that are required or change shape depending on the value of another field.',
];

async function readSchemaFiles(schemaDir: string): Promise<Map<string, SchemaFile>> {
  const names = [...new Set(SECTIONS.flatMap((plan) => [plan.file, ...(plan.alsoFile ? [plan.alsoFile] : [])]))];
  const files = new Map<string, SchemaFile>();
  for (const file of names) {
    const schema = JSON.parse(await readFile(join(schemaDir, file), 'utf8')) as JsonSchema;
    const stem = file.replace(/\.schema\.json$/, '');
    files.set(file, { file, schema, prefix: BARE_FILES.has(file) ? '' : `${stem}/`, rootName: stem });
  }
  return files;
}

/** The sections of the reference, generated from the schema files in `schemaDir`. */
export async function schemaReference(schemaDir: string): Promise<DocSection[]> {
  const files = await readSchemaFiles(schemaDir);
  const reader = new SchemaReader(files);
  const objectDefs = Object.keys((files.get(OBJECT)!.schema.$defs ?? {}) as JsonSchema);
  const starts = SECTIONS.filter((plan) => plan.from !== undefined).map((plan) => objectDefs.indexOf(plan.from!));
  return SECTIONS.map((plan) => {
    const file = files.get(plan.file)!;
    const definitions: DocDefinition[] = [];
    const sources = [plan.file];
    if (plan.from !== undefined) {
      const start = objectDefs.indexOf(plan.from);
      const end = Math.min(...starts.filter((index) => index > start), objectDefs.length);
      for (const name of objectDefs.slice(start, end)) definitions.push(...defsOf(reader, file, name, plan.title));
    } else {
      definitions.push(...wholeFile(reader, file, plan.title));
    }
    if (plan.alsoFile) {
      sources.push(plan.alsoFile);
      definitions.push(...wholeFile(reader, files.get(plan.alsoFile)!, plan.title));
    }
    return { title: plan.title, intro: plan.intro ?? [], sources, definitions };
  });
}

function defsOf(reader: SchemaReader, file: SchemaFile, name: string, section: string): DocDefinition[] {
  const defs = file.schema.$defs as Record<string, JsonSchema>;
  return reader.definitions(`${file.prefix}${name}`, defs[name]!, file, section);
}

/** A file's root (when it has fields) and every one of its definitions. */
function wholeFile(reader: SchemaReader, file: SchemaFile, section: string): DocDefinition[] {
  const { $defs, ...root } = file.schema;
  const out = reader.definitions(file.rootName, root, file, section);
  for (const name of Object.keys(($defs ?? {}) as JsonSchema)) out.push(...defsOf(reader, file, name, section));
  return out;
}

/** The whole reference as Markdown. */
export function renderSchemaReference(sections: readonly DocSection[]): string {
  const out = ['# Package schema', '', '<!-- Generated by `package-sdk docs schema` from schema/v1: do not edit by hand. -->', ''];
  for (const paragraph of INTRO) out.push(paragraph, '');
  for (const section of sections) {
    out.push(`## ${section.title}`, '');
    for (const paragraph of section.intro) out.push(paragraph, '');
    out.push(`Source: ${section.sources.map((source) => `schema/v1/${source}`).join(', ')}.`, '');
    for (const definition of section.definitions) out.push(...renderDefinition(definition));
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function renderDefinition(definition: DocDefinition): string[] {
  const out = [`### \`${definition.name}\``, ''];
  for (const paragraph of definition.description) out.push(escapeProse(paragraph), '');
  if (definition.includes.length > 0) out.push(`Includes ${definition.includes.join(', ')}.`, '');
  if (definition.value !== null) out.push(`Value: ${escapeProse(definition.value)}.`, '');
  if (definition.fields.length > 0) out.push(...fieldTable(definition), '');
  if (definition.exactlyOneOf) out.push(`Exactly one of: ${definition.exactlyOneOf.join(', ')}.`, '');
  if (definition.conditions.length > 0) {
    out.push('Conditions:', '', '| Condition | Consequence |', '|---|---|');
    for (const [condition, consequence] of definition.conditions) out.push(`| ${condition} | ${consequence} |`);
    out.push('');
  }
  return out;
}

/** The columns the reference shows: Required only when a field is required, Description only when one has it. */
function fieldTable(definition: DocDefinition): string[] {
  const withRequired = definition.fields.some((field) => field.required);
  const withDescription = definition.fields.some((field) => field.description !== '');
  const head = ['Field', 'Type', ...(withRequired ? ['Required'] : []), ...(withDescription ? ['Description'] : [])];
  const rows = definition.fields.map((field) => [
    `\`${field.name}\``,
    field.type,
    ...(withRequired ? [field.required ? 'yes' : ''] : []),
    ...(withDescription ? [escapeCell(field.description)] : []),
  ]);
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`)];
}

/** Markdown would take `<name>` for HTML and `|` for a column. */
function escapeCell(text: string): string {
  return escapeProse(text).replace(/(?<!\\)\|/g, '\\|');
}

function escapeProse(text: string): string {
  return text.replace(/</g, '&lt;').replace(/\n+/g, ' ');
}

export const REFERENCE_FILE = 'schema-reference.md';

export interface SchemaDocsResult {
  file: string;
  definitions: number;
  /** True when the file already held the current reference. */
  fresh: boolean;
  written: boolean;
}

/** Regenerates `<out>/schema-reference.md`; with `check`, only compares (nothing is written). */
export async function schemaDocs(options: { schemaDir: string; out: string; check?: boolean }): Promise<SchemaDocsResult> {
  const sections = await schemaReference(options.schemaDir);
  const text = renderSchemaReference(sections);
  const file = join(options.out, REFERENCE_FILE);
  const current = await readFile(file, 'utf8').catch(() => undefined);
  const fresh = current === text;
  if (!options.check && !fresh) await replaceFile(file, text);
  return { file, definitions: sections.reduce((n, section) => n + section.definitions.length, 0), fresh, written: !options.check && !fresh };
}
