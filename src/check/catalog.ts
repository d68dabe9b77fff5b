/**
 * Every code package-sdk reports, with its severity and one-line summary: the codes of loading, of git sources
 * and the lock, of the schema stage, the rules' metadata, and the refusals of plan and apply.
 * `check --list-rules` and docs/findings.md are generated from it.
 */
import type { Severity } from '../model/finding.js';
import { RULES } from './rules/index.js';

export interface CodeInfo {
  code: string;
  severity: Severity | 'warning/error';
  summary: string;
  /** `load`, `schema`, `lock`, `plan`, or the id of the rule that reports it. */
  source: string;
  /** The core's package check (`packages:test`) reports it too, under this code and severity. */
  core?: true;
}

type Entry = readonly [code: string, severity: CodeInfo['severity'], summary: string, core?: 'core'];

function entries(source: string, list: readonly Entry[]): CodeInfo[] {
  return list.map(([code, severity, summary, core]) => ({ code, severity, summary, source, ...(core ? { core: true as const } : {}) }));
}

/** Problems found while reading files and resolving packages (src/load/). */
const LOAD_CODES = entries('load', [
  ['read_failed', 'error', 'A file cannot be read (missing, a directory, no permission).'],
  ['file_refused', 'error', 'A file is not a regular file (a named pipe would block the reader), or a symlink in a package points outside it.'],
  ['index_changed', 'error', "A file changed while check was reading it, and check's index no longer held what the file held when it was placed: nothing is reported; run check again."],
  ['invalid_yaml', 'error', "Not YAML 1.2 as packages use it: syntax, several documents, non-JSON tags or values (.inf, !!binary), duplicate keys, recursive or runaway aliases, a NUL, over the core's limits (4 000 000 characters, nesting 100).", 'core'],
  ['invalid_json', 'error', "Not JSON: syntax, a duplicate key, a non-finite number, a lone surrogate, not UTF-8, a NUL, over the core's limits (4 000 000 characters, nesting 100)."],
  ['invalid_document', 'error', 'A file is not the wrapper {apiVersion: taimen.ai/v1, kind, key, spec}, package.yaml is not kind: Package, or the key of a Process or Calendar is not ^[a-z0-9][a-z0-9_-]{0,62}$ — the core refuses the package.', 'core'],
  ['unknown_kind', 'error', 'An object file has a kind that is neither a catalog kind nor View/Component (KnowledgePack is package-sdk\'s own: it never reaches the core, the knowledge section of plan registers it).', 'core'],
  ['installation_invalid', 'error', 'The --install file is not kind: Installation.'],
  ['package_not_found', 'error', 'A package named by a target, an installation or a requires entry is nowhere to be found.'],
  ['package_key_mismatch', 'error', 'A manifest key differs from its directory name or from the key the installation gives it.'],
  ['duplicate_package', 'error', 'Two different directories hold packages with the same key.'],
  ['requires_cycle', 'error', 'Packages require each other (a → b → a).'],
  ['unresolved_data_ref', 'error', 'A Process spec.data {$ref} points outside the package, at no file, or at something other than a JSON Schema object — the core cannot inline it.', 'core'],
]);

/** Git sources and packages.lock (src/lock/): check and plan report them while loading, lock while writing the lock. */
const LOCK_CODES = entries('lock', [
  ['lock_required', 'error', 'A git source of the installation has no entry in packages.lock: run package-sdk lock.'],
  ['lock_invalid', 'error', 'packages.lock cannot be read as package-sdk.lock/v1, or a locked commit is not a SHA-1.'],
  ['lock_stale', 'error', "The lock's source of a package differs from the installation's."],
  ['lock_not_written', 'error', 'lock: the new lock fails the lock schema (e.g. a version that is not x.y.z); nothing is written.'],
  ['lock_outdated', 'error', 'lock --check: packages.lock differs from what lock would write.'],
  ['tag_moved', 'warning/error', 'A release tag now points elsewhere than the locked commit: loading keeps the locked commit and warns, lock pins the new one and warns, plan and apply refuse.'],
  ['content_mismatch', 'error', "The content at the locked commit does not hash to the lock's contentHash."],
  ['source_unavailable', 'warning/error', 'A git remote cannot be fetched (a warning when the cache holds the locked commit).'],
  ['commit_missing', 'error', 'The locked commit is no longer in the repository: lock again.'],
  ['tag_not_found', 'error', 'The ref of a git source names no tag (branches and commit ids are not refs).'],
  ['git_tree_refused', 'error', 'The package in the repository holds a symlink, a submodule, an odd mode, .git, a case collision or a name that is not UTF-8.'],
  ['package_manifest_missing', 'error', 'The package directory of a git source has no package.yaml.'],
  ['package_version_missing', 'error', 'lock: a manifest has no spec.version (the lock pins versions).'],
  ['checkout_changed', 'error', 'lock: a checkout changed while lock ran; run it again.'],
  ['cache_race', 'error', 'A checkout vanished while being read (a concurrent cache prune); run again.'],
  ['git_url_invalid', 'error', 'The git URL of a source is neither https://host/path without credentials nor git@host:path (nor, on one machine, http to the loopback interface or file:///path).'],
  ['git_ref_invalid', 'error', 'The ref of a git source is not a tag name.'],
  ['git_path_invalid', 'error', "The path of a package in its repository is not relative, or holds '.' or '..'."],
  ['git_missing', 'error', 'Git sources need git, and git is not in PATH.'],
  ['prune_refused', 'error', 'cache prune: a lock file named or found cannot be read, or none is there to say what to keep; nothing is removed.'],
]);

const SCHEMA_CODES = entries('schema', [
  ['schema_violation', 'error', 'A document does not match its schema in schema/v1 (one finding per mistake, at the node that is wrong).'],
]);

/**
 * Why plan or apply stops (src/plan/refusal.ts), having written nothing it should not have: exit 1, or 2 for a
 * usage or I/O problem. They also refuse with the codes of loading, of the schema and of the lock.
 */
const PLAN_CODES = entries('plan', [
  ['server_invalid', 'error', '--server is not https (http only to loopback), or carries credentials.'],
  ['token_missing', 'error', 'No CP_TOKEN for a remote core.'],
  ['env_unreadable', 'error', 'The --env file cannot be read.'],
  ['packages_invalid', 'error', 'The installation does not load, or its packages fail the check.'],
  ['core_version_unknown', 'error', "The core's /openapi.json cannot be read or has no info.version, so package compatibility cannot be checked."],
  ['engines_incompatible', 'error', "The core's version is outside a package's engines.control-plane range."],
  ['variables_missing', 'error', 'A variable the packages use has no value.'],
  ['variables_invalid', 'error', 'A variable value does not fit its kind, or names a workspace, project or other object the core lacks.'],
  ['notification_service_required', 'error', 'The installation has notification rules, but no NOTIFICATION_SERVICE_URL and token.'],
  ['core_rejected', 'error', 'The core refused a request (its code and message are kept).'],
  ['core_unreachable', 'error', 'The core does not answer.'],
  ['core_plan_errors', 'error', "The core's plan has errors or needs a migration: the plan is not saved."],
  ['catalog_conflict', 'error', 'An object cannot be planned: an immutable version changed, an archived type, a knowledge pack version with other content.'],
  ['calendar_in_use', 'error', 'A calendar to retire is used by processes the plan does not retire.'],
  ['plan_not_written', 'error', 'The --out file cannot be written.'],
  ['plan_invalid', 'error', 'The file is not a package-sdk.plan/v1 plan.'],
  ['plan_modified', 'error', 'The plan was edited after it was built (its planHash does not match).'],
  ['server_mismatch', 'error', 'The plan was built for another core than the one it is applied to.'],
  ['plan_stale', 'error', 'What the plan was built against moved (packages, variables, the core): build it again.'],
  ['apply_not_confirmed', 'error', 'Nobody approved the plan (no TTY without --auto-approve or --plan-hash, a wrong --plan-hash, or "no").'],
  ['apply_failed', 'error', 'A write failed half-way: plan and apply again to complete.'],
]);

/**
 * Codes `check` reported before it took the core's code for the same mistake: [former, now]. A CI filter on a
 * former code should name the new one.
 */
const FORMER_CODES: readonly (readonly [former: string, now: string])[] = [
  ['invalid_wrapper', 'invalid_document'],
  ['data_ref_invalid', 'unresolved_data_ref'],
  ['artifact_media_wider', 'invalid_artifact_schema'],
];

export function codeCatalog(): CodeInfo[] {
  const ruleCodes = new Map<string, CodeInfo>();
  for (const rule of RULES) {
    for (const [code, meta] of Object.entries(rule.codes)) {
      const known = ruleCodes.get(code);
      const info: CodeInfo = { code, severity: meta.severity, summary: meta.summary, source: rule.id, ...(meta.core ? { core: true as const } : {}) };
      ruleCodes.set(code, known ? sharedCode(known, info) : info);
    }
  }
  return [...LOAD_CODES, ...LOCK_CODES, ...SCHEMA_CODES, ...ruleCodes.values(), ...PLAN_CODES];
}

/** A code that several families report (unknown_skill of processes and of views): one entry naming them all. */
function sharedCode(known: CodeInfo, other: CodeInfo): CodeInfo {
  return {
    code: known.code,
    severity: known.severity === other.severity ? known.severity : 'warning/error',
    summary: known.summary.includes(other.summary) ? known.summary : `${known.summary} ${other.summary}`,
    source: `${known.source}, ${other.source}`,
    ...(known.core || other.core ? { core: true as const } : {}),
  };
}

/** docs/findings.md: every code with its severity, where it comes from and what it means. */
export function renderFindingsDoc(): string {
  const lines = [
    '# Findings of `package-sdk check`, `lock`, `plan` and `apply`',
    '',
    '<!-- Generated from the catalog of codes (src/check/catalog.ts) by `npm run docs:findings`; do not edit by hand. -->',
    '',
    'Every finding and every refusal has a stable code. `check` reports the codes of loading (`load`), of git',
    'sources and packages.lock (`lock`), of the schema stage (`schema`) and of the rules; `lock` reports the `lock`',
    'codes. `plan` and `apply` stop with a refusal — a `plan` code, or a `lock` code of packages.lock and git',
    'sources — and exit 1, or 2 for a usage or I/O problem.',
    '',
    'Errors make `check` exit 1; warnings do not. A finding can be silenced on the next line with',
    '`# package-sdk-disable-next-line <code>` (it is still listed as suppressed).',
    '',
    'The column *Core* marks the codes the core reports too when it checks a package (`POST /packages:test`), under',
    'the same code and severity; the local core (`core serve`) runs exactly those. Codes of the core\'s checks at',
    'publication (skills, connection types, artifact types, project templates) say so in their meaning.',
    '',
    '| Code | Severity | Core | Reported by | Meaning |',
    '|---|---|---|---|---|',
  ];
  for (const info of codeCatalog()) {
    lines.push(`| <a id="${info.code}"></a>\`${info.code}\` | ${info.severity} | ${info.core ? 'yes' : ''} | ${info.source} | ${info.summary.replace(/\|/g, '\\|')} |`);
  }
  lines.push(
    '',
    '## Former codes',
    '',
    'Where `check` had a code of its own for a mistake the core reports under another, it now reports the core\'s. A CI',
    'filter on a former code should name the new one.',
    '',
    '| Former code | Now |',
    '|---|---|',
    ...FORMER_CODES.map(([former, now]) => `| \`${former}\` | [\`${now}\`](#${now}) |`),
  );
  return `${lines.join('\n')}\n`;
}
