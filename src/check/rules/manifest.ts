/**
 * Manifest rules (compat-package-sdk-check.md §2.7): installation variables are declared and used, their
 * defaults and examples fit their kind, and the version ranges of `requires` and `engines` parse and admit
 * the versions at hand.
 */
import { DEFAULT_CORE_VERSION } from '../../contract/version.js';
import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { Package, PackageObject } from '../../model/package.js';
import { parseRange, parseVersion, satisfies } from '../../model/semver-range.js';
import { findVariables, type VariableUse } from '../../model/variables.js';
import { VARIABLE_MARK } from '../../model/text-marks.js';
import type { Finding } from '../../model/finding.js';
import { defineRule, type RuleContext } from '../rule.js';
import { isRecord } from '../../json/guards.js';

/** The engines component the local core stands for; plan checks the stand's version of it. */
const CONTROL_PLANE = 'control-plane';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** What a value of each variable kind looks like, for `variable_invalid_value`. */
const VALUE_KINDS: Record<string, { fits: (value: string) => boolean; expected: string }> = {
  url: { fits: isAbsoluteHttpUrl, expected: 'an absolute http(s) URL with a host, e.g. https://helpdesk.example.com/api' },
  workspace: { fits: (v) => UUID.test(v), expected: 'a UUID (the id of a workspace)' },
  project: { fits: (v) => UUID.test(v), expected: 'a UUID (the id of a project)' },
  principal: { fits: (v) => UUID.test(v), expected: 'a UUID (the id of a principal)' },
  role: { fits: (v) => UUID.test(v), expected: 'a UUID (the id of a role)' },
  integer: { fits: (v) => /^-?[0-9]+$/.test(v), expected: 'an integer: digits with an optional minus' },
};

export const variables = defineRule({
  id: 'manifest/variables',
  description: 'Every ${NAME} an object uses is declared in spec.variables, every declared one is used, and defaults and examples fit their kind.',
  codes: {
    variable_undeclared: {
      severity: 'error',
      summary: 'An object uses a ${NAME} that spec.variables of its package does not declare.',
      message: (d: { name: string; users: string; pkg: string; none: boolean }) =>
        d.none
          ? `package ${d.pkg} uses ${d.users} but declares no spec.variables`
          : `\${${d.name}} is used by ${d.users} but not declared in spec.variables of package ${d.pkg}`,
    },
    variable_unused: {
      severity: 'error',
      summary: 'A variable of spec.variables is used by no object of the package.',
      message: (d: { name: string; pkg: string }) => `variable ${d.name} is declared, but no object of package ${d.pkg} uses \${${d.name}}`,
    },
    variable_invalid_value: {
      severity: 'error',
      summary: "A variable's default or example does not fit its kind (url, workspace, project, principal, role, integer).",
      message: (d: { name: string; field: string; value: string; kind: string; expected: string }) =>
        `${d.field} '${d.value}' of variable ${d.name} does not fit its kind ${d.kind}: expected ${d.expected}`,
    },
    variable_required_with_default: {
      severity: 'warning',
      summary: 'A variable is required and has a default, so the default is never needed.',
      message: (d: { name: string }) => `variable ${d.name} is required and has a default — the default makes it optional`,
    },
  },
  check(context) {
    const validObjects = new Set(context.objects().map((object) => object.document));
    for (const pkg of context.packages()) {
      const spec = manifestSpec(pkg);
      const uses = variableUses(pkg);
      if (!('variables' in spec)) {
        reportNoDeclarations(context, pkg, uses);
        continue;
      }
      const declared = isRecord(spec.variables) ? spec.variables : {};
      reportUndeclared(context, pkg, uses, declared, validObjects);
      for (const [name, declaration] of Object.entries(declared)) {
        const pointer = childPointer('/spec/variables', name);
        if (!uses.has(name)) {
          context.report('variable_unused', { document: pkg.manifest, pointer, part: 'key' }, { name, pkg: pkg.key }, {
            hint: `use it as \${${name}} in an object of the package, or remove it (uses inside package.yaml do not count)`,
          });
        }
        if (isRecord(declaration)) checkDeclaration(context, pkg, name, declaration, pointer);
      }
    }
  },
});

type VariablesContext = RuleContext<typeof variables.codes>;

interface ObjectUse {
  object: PackageObject;
  use: VariableUse;
}

/** Every `${NAME}` in the objects of the package (package.yaml itself is not an object), by name, in file order. */
function variableUses(pkg: Package): Map<string, ObjectUse[]> {
  const uses = new Map<string, ObjectUse[]>();
  for (const object of pkg.objects) {
    if (!object.document.includes(VARIABLE_MARK)) continue; // no variable written: no need to walk the spec
    for (const use of findVariables(object.document)) {
      const list = uses.get(use.name) ?? [];
      list.push({ object, use });
      uses.set(use.name, list);
    }
  }
  return uses;
}

function reportNoDeclarations(context: VariablesContext, pkg: Package, uses: Map<string, ObjectUse[]>): void {
  if (uses.size === 0) return;
  const names = [...uses.keys()].sort();
  context.report(
    'variable_undeclared',
    { document: pkg.manifest, pointer: '/spec', part: 'key' },
    { name: names[0]!, users: names.map((name) => `\${${name}}`).join(', '), pkg: pkg.key, none: true },
    { hint: `declare them under spec.variables with a kind and a description, e.g. ${names[0]}: {kind: string, description: …}` },
  );
}

function reportUndeclared(
  context: VariablesContext,
  pkg: Package,
  uses: Map<string, ObjectUse[]>,
  declared: Record<string, unknown>,
  validObjects: ReadonlySet<unknown>,
): void {
  for (const [name, list] of uses) {
    if (Object.hasOwn(declared, name)) continue;
    const first = list.find(({ object }) => validObjects.has(object.document));
    if (first === undefined) continue; // only objects that failed the schema use it: their findings come first
    const users = [...new Set(list.map(({ object }) => object.ref))].join(', ');
    const { use } = first;
    context.report(
      'variable_undeclared',
      { document: first.object.document, pointer: use.pointer, offset: use.offset, length: name.length + 3 },
      { name, users, pkg: pkg.key, none: false },
      { hint: didYouMean(name, Object.keys(declared)) ?? `declare ${name} in package.yaml under spec.variables with a kind and a description` },
    );
  }
}

function checkDeclaration(context: VariablesContext, pkg: Package, name: string, declaration: Record<string, unknown>, pointer: string): void {
  const kind = typeof declaration.kind === 'string' ? declaration.kind : undefined;
  const shape = kind === undefined ? undefined : VALUE_KINDS[kind];
  for (const field of ['default', 'example'] as const) {
    const value = declaration[field];
    if (shape === undefined || typeof value !== 'string' || value.includes('${') || shape.fits(value)) continue;
    context.report('variable_invalid_value', { document: pkg.manifest, pointer: childPointer(pointer, field) }, { name, field, value, kind: kind!, expected: shape.expected });
  }
  if (declaration.required === true && 'default' in declaration) {
    context.report('variable_required_with_default', { document: pkg.manifest, pointer: childPointer(pointer, 'required') }, { name }, {
      hint: 'remove required: true (a variable with a default is optional), or remove the default',
    });
  }
}

export const requires = defineRule({
  id: 'manifest/requires',
  description: 'The version range of a requires entry parses, and the installed package it names fits it.',
  ownsManifestFields: ['/spec/requires/*/version'],
  codes: {
    requires_version_invalid: {
      severity: 'error',
      summary: 'A requires[].version range does not parse.',
      message: (d: { pkg: string; reason: string }) => `the version range of required package ${d.pkg} does not parse: ${d.reason}`,
    },
    requires_version_mismatch: {
      severity: 'error',
      summary: 'The installation holds a version of a required package that its range does not admit.',
      message: (d: { pkg: string; range: string; version: string }) => `requires ${d.pkg} ${d.range}, the installation has ${d.pkg} ${d.version}`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      const entries = manifestSpec(pkg).requires;
      if (!Array.isArray(entries)) continue;
      const reported = new Set<string>();
      entries.forEach((entry, index) => {
        if (!isRecord(entry) || !('version' in entry)) return;
        const pointer = childPointer(childPointer('/spec/requires', index), 'version');
        const required = typeof entry.package === 'string' ? entry.package : '?';
        const range = checkRange(entry.version);
        if (!range.ok) {
          reported.add(pointer);
          context.report('requires_version_invalid', { document: pkg.manifest, pointer }, { pkg: required, reason: range.reason }, { hint: RANGE_HINT });
          return;
        }
        const installed = context.workspace.package(required)?.version;
        const version = installed === undefined ? undefined : parseVersion(installed);
        if (version !== undefined && !satisfies(version, range)) {
          context.report('requires_version_mismatch', { document: pkg.manifest, pointer }, { pkg: required, range: String(entry.version), version: installed! }, {
            hint: `widen the range to admit ${installed}, or install a version of ${required} that fits it`,
          });
        }
      });
      for (const { path, message } of unexplained(context.schemaFindings(pkg.manifest), reported)) {
        context.report('requires_version_invalid', { document: pkg.manifest, pointer: path }, { pkg: '?', reason: message });
      }
    }
  },
});

export const engines = defineRule({
  id: 'manifest/engines',
  description: 'Every engines range parses, and the local core fits the control-plane range.',
  ownsManifestFields: ['/spec/engines/*'],
  codes: {
    engines_invalid: {
      severity: 'error',
      summary: 'An engines.<component> range does not parse.',
      message: (d: { component: string; reason: string }) => `engines.${d.component} does not parse: ${d.reason}`,
    },
    engines_mismatch: {
      severity: 'warning',
      summary: 'The local core does not fit the engines.control-plane range (plan checks the version of the stand).',
      message: (d: { range: string; version: string }) => `engines.${CONTROL_PLANE} '${d.range}' does not admit the local core ${d.version}`,
    },
  },
  check(context) {
    const local = parseVersion(DEFAULT_CORE_VERSION)!;
    for (const pkg of context.packages()) {
      const declared = manifestSpec(pkg).engines;
      if (!isRecord(declared)) continue;
      const reported = new Set<string>();
      for (const [component, written] of Object.entries(declared)) {
        const pointer = childPointer('/spec/engines', component);
        const range = checkRange(written);
        if (!range.ok) {
          reported.add(pointer);
          context.report('engines_invalid', { document: pkg.manifest, pointer }, { component, reason: range.reason }, { hint: RANGE_HINT });
        } else if (component === CONTROL_PLANE && !satisfies(local, range)) {
          context.report('engines_mismatch', { document: pkg.manifest, pointer }, { range: String(written), version: DEFAULT_CORE_VERSION }, {
            hint: 'plan checks the range against the core it installs to; widen it if the package works with this core',
          });
        }
      }
      for (const { path, message } of unexplained(context.schemaFindings(pkg.manifest), reported)) {
        context.report('engines_invalid', { document: pkg.manifest, pointer: path }, { component: '?', reason: message });
      }
    }
  },
});

const RANGE_HINT = 'write comma-separated conditions such as ">=0.9,<0.11", "^1.2", "~1.2.3" or "1.2"; * admits any version';

function checkRange(written: unknown): ReturnType<typeof parseRange> {
  return typeof written === 'string' ? parseRange(written) : { ok: false, reason: `a range is text in quotes, not ${JSON.stringify(written)}` };
}

/** Schema errors of the owned fields that no finding of the rule stands for (the grammars agree, so normally none). */
function unexplained(findings: readonly Finding[], reported: ReadonlySet<string>): Finding[] {
  return findings.filter((finding) => ![...reported].some((pointer) => finding.path === pointer || finding.path.startsWith(`${pointer}/`)));
}

function manifestSpec(pkg: Package): Record<string, unknown> {
  const spec = (pkg.manifest.value as { spec?: unknown } | null)?.spec;
  return isRecord(spec) ? spec : {};
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
