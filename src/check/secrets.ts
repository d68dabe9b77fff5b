/**
 * What looks like a secret in a package (compat-package-sdk-check.md §2.8, §2.15). A package carries no
 * secret values — an administrator enters them in the console — so a field *named* like a secret, or a
 * string that *holds* access material, is refused by the core. One detector for every rule that needs it
 * (settings, task type fields, connection types), so they agree on what a secret is.
 */

/** Fragments of a normalised name (lowercase, without `-` and `_`) that make it a secret name. */
const SECRET_NAME_PARTS = ['password', 'passwd', 'secret', 'token', 'apikey', 'privatekey', 'credential', 'authorization', 'clientsecret'];

/**
 * Matches a text that may hold a secret-like name: one of the fragments, with `-` or `_` anywhere in it. A
 * document whose JSON does not match has no member named like a secret, and need not be walked.
 */
export const SECRET_NAME_TEXT = new RegExp(SECRET_NAME_PARTS.map((part) => [...part].join('[-_]*')).join('|'), 'i');

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
 * Shapes of access material, as the core's secret_material knows them (compat-core-validators.md §0.3): a PEM
 * private key, provider tokens (sk-/rk-, GitHub, Slack, AWS, Google), a bearer token, a JSON Web Token, and an
 * assignment of a long value to a password, secret, token or key. Ordinary prose, URLs and `${VARIABLE}` /
 * `{{template}}` placeholders do not match: talking about secrets is fine.
 */
const CREDENTIAL_PATTERNS: readonly { kind: string; pattern: RegExp }[] = [
  { kind: 'a PEM private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/ },
  { kind: 'a GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/ },
  { kind: 'a Slack token', pattern: /\bxox[baprs]-[A-Za-z0-9-]{10,}/ },
  { kind: 'an AWS access key id', pattern: /\bAKIA[0-9A-Z]{16}/ },
  { kind: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{30,}/ },
  { kind: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'an API key (sk-/rk-)', pattern: /\b[sr]k-[A-Za-z0-9_-]{16,}/ },
  { kind: 'a bearer token', pattern: /\bBearer [A-Za-z0-9._~+/=-]{20,}/i },
  {
    kind: 'a password assignment',
    pattern: /\b(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)\s*[=:]\s*["']?[A-Za-z0-9+/=_.-]{16,}/i,
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
