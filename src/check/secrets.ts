/**
 * What looks like a secret in a package (compat-package-sdk-check.md §2.8, §2.15). A package carries no
 * secret values — an administrator enters them in the console — so a field *named* like a secret, or a
 * string that *holds* access material, is refused by the core. One detector for every rule that needs it
 * (settings, task type fields, connection types), so they agree on what a secret is.
 */

/** Fragments of a normalised name (lowercase, without `-` and `_`) that make it a secret name. */
const SECRET_NAME_PARTS = ['password', 'passwd', 'secret', 'token', 'apikey', 'privatekey', 'credential', 'authorization', 'clientsecret'];

/** A reference to a secret kept elsewhere is how a package names one, so it is not a secret itself. */
const SECRET_REFERENCE_NAMES: ReadonlySet<string> = new Set(['secretref']);

/**
 * True for a field name the core refuses as a secret: lowercased and without `-`/`_`, it contains password,
 * passwd, secret, token, apikey, privatekey, credential, authorization or clientsecret (`tokenizerMode` is
 * one; `secretRef`/`secret_ref`, `routingKey` and `keyword` are not).
 */
export function isSecretLikeName(name: string): boolean {
  const normalised = name.toLowerCase().replace(/[-_]/g, '');
  if (SECRET_REFERENCE_NAMES.has(normalised)) return false;
  return SECRET_NAME_PARTS.some((part) => normalised.includes(part));
}

/** Access material found in a text: what it looks like, and where (UTF-16 offset and length). */
export interface CredentialMaterial {
  /** What it looks like, for a message: "a PEM private key", "a GitHub token", … */
  kind: string;
  offset: number;
  length: number;
}

/**
 * Shapes of access material, most specific first. Each is written so that ordinary prose, URLs and
 * `${VARIABLE}` / `{{template}}` placeholders do not match.
 */
const CREDENTIAL_PATTERNS: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'a PEM private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
  { kind: 'a GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/ },
  { kind: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  { kind: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'an API key (sk-/rk-)', pattern: /\b[sr]k[-_](?:live_|test_|proj-|ant-)?[A-Za-z0-9_-]{20,}/ },
  { kind: 'a bearer token', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/ },
  {
    kind: 'a password assignment',
    pattern: /\b(?:password|passwd|pwd|secret|token|api[_-]?key|client[_-]?secret|access[_-]?key)\s*[=:]\s*["']?(?![$]\{|\{\{)[^\s"'&;,]{16,}/i,
  },
];

/** The first piece of access material in `text` (the earliest by position), or undefined. */
export function findCredentialMaterial(text: string): CredentialMaterial | undefined {
  let found: CredentialMaterial | undefined;
  for (const { kind, pattern } of CREDENTIAL_PATTERNS) {
    const match = pattern.exec(text);
    if (match && (found === undefined || match.index < found.offset)) found = { kind, offset: match.index, length: match[0].length };
  }
  return found;
}
