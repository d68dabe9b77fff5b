/**
 * What an installation of a package needs (`package-sdk describe`): its variables, settings, ontologies,
 * required packages, engines, and the agents with the node labels and secrets their placement asks for.
 * The generated README sections (`docs package`) show the same data.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isRecord } from '../json/guards.js';
import { loadPackage } from '../load/package.js';
import type { Package } from '../model/package.js';
import { Refusal } from '../fs/refusal.js';

export interface VariableNeed {
  name: string;
  kind: string;
  required: boolean;
  default?: string;
  example?: string;
  description: string;
}

export interface SettingNeed {
  /** Dotted path of the field (`intake.mailbox`). */
  path: string;
  type: string;
  required: boolean;
  default?: unknown;
}

export interface AgentNeed {
  key: string;
  /** `executor.kind`, when the agent runs one. */
  executor?: string;
  /** False for `placement: none`: an identity without a process. */
  runs: boolean;
  nodeLabels: string[];
  secrets: string[];
}

/** `describe --json`. */
export interface PackageDescription {
  key: string;
  version?: string;
  displayName?: string;
  objects: { kind: string; key: string; file: string }[];
  variables: VariableNeed[];
  settings: SettingNeed[];
  ontologies: string[];
  requires: { package: string; version?: string }[];
  engines: Record<string, string>;
  agents: AgentNeed[];
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/** Loads the package in `dir` and describes it; a package that cannot be loaded is a refusal. */
export async function describePackage(dir: string): Promise<PackageDescription> {
  const absolute = resolve(dir);
  if (!isDirectory(absolute)) throw new Refusal('package_not_found', `${dir}: no such directory`, { exitCode: 2 });
  // Findings name files relative to the package, so the message names the package's directory itself.
  const loaded = await loadPackage(absolute, { cwd: absolute });
  if (!loaded.package) {
    const first = loaded.findings[0];
    throw new Refusal('package_not_found', first ? `${dir}: ${first.message.replace(/ in \.$/, ` in ${dir}`)}` : `no package in ${dir}`, { exitCode: 2 });
  }
  return descriptionOf(loaded.package);
}

export function descriptionOf(pkg: Package): PackageDescription {
  const spec = isRecord((pkg.manifest.value as Record<string, unknown>).spec) ? ((pkg.manifest.value as Record<string, unknown>).spec as Record<string, unknown>) : {};
  const description: PackageDescription = {
    key: pkg.key,
    objects: pkg.objects
      .map((object) => ({ kind: object.kind, key: object.key, file: object.file.split('\\').join('/') }))
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.key.localeCompare(b.key)),
    variables: variablesOf(spec.variables),
    settings: isRecord(spec.settings) && isRecord(spec.settings.schema) ? settingsOf(spec.settings.schema, '') : [],
    ontologies: strings(spec.knowledge),
    requires: pkg.requires.map((requirement) => ({ package: requirement.package, ...(requirement.version ? { version: requirement.version } : {}) })),
    engines: isRecord(spec.engines) ? Object.fromEntries(Object.entries(spec.engines).filter(([, range]) => typeof range === 'string')) as Record<string, string> : {},
    agents: pkg.objects
      .filter((object) => object.kind === 'Agent')
      .map((object) => agentNeed(object.key, object.spec))
      .sort((a, b) => a.key.localeCompare(b.key)),
  };
  if (pkg.version !== undefined) description.version = pkg.version;
  if (typeof spec.displayName === 'string') description.displayName = spec.displayName;
  return description;
}

function variablesOf(variables: unknown): VariableNeed[] {
  if (!isRecord(variables)) return [];
  return Object.entries(variables)
    .filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]))
    .map(([name, variable]) => {
      const need: VariableNeed = {
        name,
        kind: typeof variable.kind === 'string' ? variable.kind : 'string',
        required: variable.required !== false && variable.default === undefined,
        description: typeof variable.description === 'string' ? variable.description : '',
      };
      if (typeof variable.default === 'string') need.default = variable.default;
      if (typeof variable.example === 'string') need.example = variable.example;
      return need;
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Every non-object field of a settings schema, depth first, by its dotted path. */
function settingsOf(schema: Record<string, unknown>, prefix: string): SettingNeed[] {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = new Set(strings(schema.required));
  return Object.entries(properties).flatMap(([name, field]) => {
    if (!isRecord(field)) return [];
    const path = `${prefix}${name}`;
    if (field.type === 'object') return settingsOf(field, `${path}.`);
    const need: SettingNeed = { path, type: typeof field.type === 'string' ? field.type : 'any', required: required.has(name) };
    if ('default' in field) need.default = field.default;
    return [need];
  });
}

function agentNeed(key: string, spec: Record<string, unknown>): AgentNeed {
  const placement = spec.placement;
  const need: AgentNeed = {
    key,
    runs: placement !== 'none',
    nodeLabels: isRecord(placement) ? strings(placement.requires) : [],
    secrets: isRecord(placement) ? strings(placement.secrets) : [],
  };
  if (isRecord(spec.executor) && typeof spec.executor.kind === 'string') need.executor = spec.executor.kind;
  return need;
}

/** A `.env` template: required variables to fill in, optional ones commented out with their default. */
export function envExample(description: PackageDescription): string {
  const lines = [`# Installation variables of the package ${description.key} (package-sdk describe --env-example)`];
  for (const variable of description.variables) {
    lines.push('', `# ${variable.description || variable.name} (${variable.kind}, ${variable.required ? 'required' : 'optional'})`);
    if (variable.example !== undefined) lines.push(`# example: ${variable.example}`);
    lines.push(variable.required ? `${variable.name}=` : `# ${variable.name}=${variable.default ?? ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `describe` as text. */
export function renderDescription(description: PackageDescription): string {
  const out = [`package ${description.key}${description.version ? ` ${description.version}` : ''}${description.displayName ? ` — ${description.displayName}` : ''}`];
  const section = (title: string, lines: string[]): void => {
    out.push('', `${title}:`, ...(lines.length > 0 ? lines.map((line) => `  ${line}`) : ['  —']));
  };
  section('variables', description.variables.map((v) => `${v.name} (${v.kind}, ${v.required ? 'required' : `optional${v.default !== undefined ? `, default ${v.default}` : ''}`})${v.example !== undefined ? ` e.g. ${v.example}` : ''}${v.description ? ` — ${v.description}` : ''}`));
  section('settings', description.settings.map((s) => `${s.path} (${s.type}${s.required ? ', required' : ''}${s.default !== undefined ? `, default ${JSON.stringify(s.default)}` : ''})`));
  section('ontologies', description.ontologies);
  section('requires', description.requires.map((r) => (r.version ? `${r.package} ${r.version}` : r.package)));
  section('engines', Object.entries(description.engines).map(([component, range]) => `${component} ${range}`));
  section('agents', description.agents.map((a) => `${a.key}: ${a.runs ? `${a.executor ?? 'no executor'}; node labels ${a.nodeLabels.join(', ') || '—'}; node secrets ${a.secrets.join(', ') || '—'}` : 'identity only, no process'}`));
  return out.join('\n');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
