/**
 * Every code `check` can report, with its severity and one-line summary: the rules' metadata, plus the codes
 * of loading and of the schema stage. `check --list-rules` and docs/findings.md are generated from it.
 */
import type { Severity } from '../model/finding.js';
import { RULES } from './rules/index.js';

export interface CodeInfo {
  code: string;
  severity: Severity | 'warning/error';
  summary: string;
  /** `load`, `schema`, or the id of the rule that reports it. */
  source: string;
}

/** Problems found while reading files and resolving packages (src/load/, src/lock/). */
const LOAD_CODES: readonly CodeInfo[] = [
  ['read_failed', 'error', 'A file cannot be read (missing, a directory, no permission).'],
  ['invalid_yaml', 'error', 'Not YAML 1.2 as packages use it: syntax, several documents, non-JSON tags or values (.inf, !!binary), duplicate keys, recursive or runaway aliases.'],
  ['invalid_json', 'error', 'Not JSON: syntax, a duplicate key, a non-finite number, a lone surrogate, not UTF-8.'],
  ['invalid_wrapper', 'error', 'A file is not the wrapper {apiVersion: taimen.ai/v1, kind, key, spec}, or package.yaml is not kind: Package.'],
  ['unknown_kind', 'error', 'An object file has a kind that is neither a catalog kind nor View/Component.'],
  ['installation_invalid', 'error', 'The --install file is not kind: Installation.'],
  ['package_not_found', 'error', 'A package named by a target, an installation or a requires entry is nowhere to be found.'],
  ['package_key_mismatch', 'error', 'A manifest key differs from its directory name or from the key the installation gives it.'],
  ['duplicate_package', 'error', 'Two different directories hold packages with the same key.'],
  ['requires_cycle', 'error', 'Packages require each other (a → b → a).'],
  ['data_ref_invalid', 'error', 'A Process spec.data {$ref} points outside the package, at no file, or at something other than a JSON Schema object.'],
  ['lock_required', 'error', 'A git source of the installation has no entry in packages.lock: run package-sdk lock.'],
  ['lock_invalid', 'error', 'packages.lock cannot be read as package-sdk.lock/v1.'],
  ['lock_stale', 'error', "The lock's source of a package differs from the installation's."],
  ['tag_moved', 'warning', 'A release tag now points elsewhere than the locked commit; the lock wins.'],
  ['content_mismatch', 'error', 'The content at the locked commit does not hash to the lock\'s contentHash.'],
  ['source_unavailable', 'warning/error', 'A git remote cannot be fetched (a warning when the cache holds the locked commit).'],
].map(([code, severity, summary]) => ({ code, severity, summary, source: 'load' }) as CodeInfo);

const SCHEMA_CODES: readonly CodeInfo[] = [
  {
    code: 'schema_violation',
    severity: 'error',
    summary: 'A document does not match its schema in schema/v1 (one finding per mistake, at the node that is wrong).',
    source: 'schema',
  },
];

export function codeCatalog(): CodeInfo[] {
  const ruleCodes = new Map<string, CodeInfo>();
  for (const rule of RULES) {
    for (const [code, meta] of Object.entries(rule.codes)) {
      const known = ruleCodes.get(code);
      ruleCodes.set(code, known ? sharedCode(known, meta, rule.id) : { code, severity: meta.severity, summary: meta.summary, source: rule.id });
    }
  }
  return [...LOAD_CODES, ...SCHEMA_CODES, ...ruleCodes.values()];
}

/** A code that several families report (unknown_skill of processes and of views): one entry naming them all. */
function sharedCode(known: CodeInfo, meta: { severity: Severity; summary: string }, source: string): CodeInfo {
  return {
    code: known.code,
    severity: known.severity === meta.severity ? known.severity : 'warning/error',
    summary: known.summary.includes(meta.summary) ? known.summary : `${known.summary} ${meta.summary}`,
    source: `${known.source}, ${source}`,
  };
}

/** docs/findings.md: every code with its severity, where it comes from and what it means. */
export function renderFindingsDoc(): string {
  const lines = [
    '# Findings of `package-sdk check`',
    '',
    '<!-- Generated from the rules\' metadata by `npm run docs:findings`; do not edit by hand. -->',
    '',
    'Every finding has a stable code. Errors make `check` exit 1; warnings do not. A finding can be silenced',
    'on the next line with `# package-sdk-disable-next-line <code>` (it is still listed as suppressed).',
    '',
    '| Code | Severity | Reported by | Meaning |',
    '|---|---|---|---|',
  ];
  for (const info of codeCatalog()) {
    lines.push(`| <a id="${info.code}"></a>\`${info.code}\` | ${info.severity} | ${info.source} | ${info.summary.replace(/\|/g, '\\|')} |`);
  }
  return `${lines.join('\n')}\n`;
}
