/**
 * A connection type as the core publishes it (check_connection_type_spec, compat-core-validators.md §6): the
 * members the API contract knows, no credentials anywhere and no setting named like a secret, then its form —
 * how a person consents (oauth2), how an administrator pastes a token (accountField), and the settings schema.
 */
import { isRecord } from '../../json/guards.js';
import { credentialProblems, secretKeyProblems } from './json-guard.js';
import { jsonSchemaProblems } from './json-schema.js';
import { at, isText, Problems, type DomainProblem } from './problems.js';
import { regexProblem } from './regex.js';

const MEMBERS: Record<string, readonly string[]> = {
  '': ['displayName', 'description', 'auth', 'oauth2', 'accountField', 'settingsSchema', 'defaultKey'],
  oauth2: ['authorizeUrl', 'tokenUrlTemplate', 'accountParam', 'authStyle', 'scopes'],
  accountField: ['title', 'description', 'pattern'],
};
const ACCOUNT = '{account}';
const ACCOUNT_PARAM = /^[A-Za-z0-9_-]{1,64}$/;
const DEFAULT_KEY = /^[a-z0-9][a-z0-9-]{0,62}$/;
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Every problem of a connection type's spec (`version` is the package's, not the core's spec). */
export function connectionTypeProblems(spec: Record<string, unknown>): DomainProblem[] {
  const problems = new Problems('invalid_connection_type');
  const present = withoutNulls(spec);
  unknownMembers(present, problems);
  const body = Object.fromEntries(Object.entries(present).filter(([key]) => key !== 'version'));
  problems.addAll(credentialProblems(body, '/spec', 'spec', { names: true }));
  if (isRecord(present.settingsSchema)) problems.addAll(secretKeyProblems(present.settingsSchema, '/spec/settingsSchema', 'the settings of a connection type'));
  form(present, problems);
  return problems.list;
}

/** Null members of the spec, of oauth2 and of accountField mean absent (the settings schema keeps its nulls). */
function withoutNulls(spec: Record<string, unknown>): Record<string, unknown> {
  const present = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, item]) => item !== null));
  const out = present(spec);
  for (const part of ['oauth2', 'accountField']) if (isRecord(out[part])) out[part] = present(out[part] as Record<string, unknown>);
  return out;
}

function unknownMembers(spec: Record<string, unknown>, problems: Problems): void {
  const check = (value: unknown, part: string) => {
    if (!isRecord(value)) return;
    const allowed = MEMBERS[part]!;
    const base = part === '' ? '/spec' : at('/spec', part);
    for (const name of Object.keys(value).filter((key) => !allowed.includes(key) && !(part === '' && key === 'version'))) {
      problems.add(at(base, name), `Request does not match the API contract: ${part === '' ? 'spec' : part} has no member '${name}'`, {
        code: 'invalid_request',
        atKey: true,
        hint: `members: ${allowed.join(', ')}`,
      });
    }
  };
  check(spec, '');
  check(spec.oauth2, 'oauth2');
  check(spec.accountField, 'accountField');
}

function form(spec: Record<string, unknown>, problems: Problems): void {
  if (!isText(spec.displayName, 200)) problems.add('/spec/displayName', 'displayName is required: 1 to 200 characters');
  if (spec.description !== undefined && !(typeof spec.description === 'string' && [...spec.description].length <= 2000)) {
    problems.add('/spec/description', 'description has at most 2000 characters');
  }
  const auth = spec.auth;
  const methods = Array.isArray(auth) ? auth : [];
  if (!Array.isArray(auth) || auth.length === 0 || auth.some((m) => m !== 'oauth2' && m !== 'token') || new Set(auth).size !== auth.length) {
    problems.add('/spec/auth', "auth must be a non-empty list of ['oauth2', 'token'] without repeats");
  }
  const template = isRecord(spec.oauth2) && typeof spec.oauth2.tokenUrlTemplate === 'string' ? spec.oauth2.tokenUrlTemplate : undefined;
  if (methods.includes('oauth2') && spec.oauth2 === undefined) problems.add('/spec', 'oauth2 is required for a type whose auth names oauth2');
  if (!methods.includes('oauth2') && spec.oauth2 !== undefined && Array.isArray(auth)) {
    problems.add('/spec/oauth2', 'oauth2 is described only for a type whose auth names oauth2', { atKey: true });
  }
  if (spec.oauth2 !== undefined) oauth2(spec.oauth2, problems);
  const needsAccount = methods.includes('token') || (template !== undefined && template.includes(ACCOUNT));
  if (needsAccount && spec.accountField === undefined) {
    problems.add('/spec', 'accountField is required when auth names token or the token URL names {account}');
  }
  if (spec.accountField !== undefined) accountField(spec.accountField, problems);
  settingsSchema(spec.settingsSchema, problems);
  if (!(typeof spec.defaultKey === 'string' && DEFAULT_KEY.test(spec.defaultKey))) problems.add('/spec/defaultKey', `defaultKey is required and matches ${DEFAULT_KEY.source}`);
}

function oauth2(value: unknown, problems: Problems): void {
  const base = '/spec/oauth2';
  if (!isRecord(value)) return problems.add(base, 'oauth2 must be an object');
  const authorize = value.authorizeUrl;
  const authorizeProblem = typeof authorize === 'string' ? urlProblem(authorize) : 'is required';
  if (authorizeProblem) problems.add(at(base, 'authorizeUrl'), `oauth2.authorizeUrl ${authorizeProblem}`);
  const template = value.tokenUrlTemplate;
  const templateProblem = typeof template === 'string' ? tokenUrlProblem(template) : 'is required';
  if (templateProblem) {
    problems.add(at(base, 'tokenUrlTemplate'), `oauth2.tokenUrlTemplate ${templateProblem}`, {
      hint: 'e.g. https://{account}.provider.example/oauth/token or https://provider.example/oauth/token',
    });
  }
  const param = value.accountParam;
  if (param !== undefined && !(typeof param === 'string' && ACCOUNT_PARAM.test(param))) problems.add(at(base, 'accountParam'), `oauth2.accountParam must match ${ACCOUNT_PARAM.source}`);
  if (param === undefined && typeof template === 'string' && template.includes(ACCOUNT)) {
    problems.add(base, 'oauth2.accountParam is required when tokenUrlTemplate names {account}', { hint: 'the callback parameter that names the account' });
  }
  if (value.authStyle !== 'in_params' && value.authStyle !== 'in_header') problems.add(at(base, 'authStyle'), "oauth2.authStyle is required: one of ['in_params', 'in_header']");
  const scopes = value.scopes;
  if (!Array.isArray(scopes) || scopes.length > 50 || scopes.some((scope) => !isText(scope, 200))) {
    problems.add(at(base, 'scopes'), 'oauth2.scopes is required: a list of at most 50 scopes of 1 to 200 characters');
  }
}

/** Why an https address (the consent page) is refused, or undefined. */
function urlProblem(url: string): string | undefined {
  if ([...url].length > 2000) return 'has at most 2000 characters';
  if (!url.startsWith('https://')) return 'must start with https://';
  if (/\s/.test(url)) return 'must not contain whitespace';
  const authority = url.slice('https://'.length).split(/[/?#]/)[0] ?? '';
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const [host = '', port] = hostPort.startsWith('[') ? [hostPort.slice(0, hostPort.indexOf(']') + 1), hostPort.slice(hostPort.indexOf(']') + 2) || undefined] : hostPort.split(':');
  if (host.length === 0) return 'must name a host';
  if (port !== undefined && !/^[0-9]+$/.test(port)) return 'must have a numeric port, if any';
  return undefined;
}

/**
 * Why a token URL template is refused, or undefined: an https template over one placeholder, `{account}`,
 * whose host is an external DNS name — the address the core sends the client secret to must not be steerable
 * to a port or an IP literal.
 */
export function tokenUrlProblem(template: string): string | undefined {
  if ([...template].length > 2000) return 'has at most 2000 characters';
  if (!template.startsWith('https://')) return 'must start with https://';
  if (/\s/.test(template)) return 'must not contain whitespace';
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    if (match[0] !== ACCOUNT) return `has one placeholder, {account}, not ${match[0]}`;
  }
  if (/[{}]/.test(template.split(ACCOUNT).join(''))) return 'has unbalanced braces';
  const authority = template.slice('https://'.length).split(/[/?#]/)[0] ?? '';
  if (authority.includes('@')) return 'has user info in its address — the host comes right after https://';
  if (authority.includes(':') || authority.includes('[')) return 'has a port in its address — the host is an external DNS name without a port';
  const labels = authority.split('.');
  if (authority.includes(ACCOUNT)) {
    if (labels.some((label) => label.includes(ACCOUNT) && label !== ACCOUNT)) return 'puts {account} in whole labels of the host';
    if (labels.some((label) => label !== ACCOUNT && !DNS_LABEL.test(label))) return 'has a host of DNS labels (a-z, 0-9, inner hyphens)';
    const last = labels[labels.length - 1] ?? '';
    if (last !== ACCOUNT && /^(?:[0-9]+|0x[0-9a-f]+)$/.test(last)) return 'has a host that is a DNS name, not an IP address';
    return undefined;
  }
  const last = labels[labels.length - 1] ?? '';
  if (labels.length < 2 || !labels.every((label) => DNS_LABEL.test(label)) || /^(?:[0-9]+|0x[0-9a-f]+)$/.test(last)) {
    return 'has a host that is an external DNS name: two or more DNS labels, not an IP address';
  }
  return undefined;
}

function accountField(value: unknown, problems: Problems): void {
  const base = '/spec/accountField';
  if (!isRecord(value)) return problems.add(base, 'accountField must be an object {title, description?, pattern}');
  if (!isText(value.title, 200)) problems.add(at(base, 'title'), 'accountField.title is required: 1 to 200 characters');
  if (value.description !== undefined && !(typeof value.description === 'string' && [...value.description].length <= 2000)) {
    problems.add(at(base, 'description'), 'accountField.description has at most 2000 characters');
  }
  const pattern = value.pattern;
  if (!isText(pattern, 500)) {
    problems.add(at(base, 'pattern'), 'accountField.pattern is required: 1 to 500 characters');
    return;
  }
  const problem = regexProblem(pattern);
  if (problem) problems.add(at(base, 'pattern'), `accountField.pattern '${pattern}' is not a regular expression (${problem})`, { hint: 'write a regular expression that the whole account matches, e.g. ^[a-z0-9-]+$' });
}

function settingsSchema(value: unknown, problems: Problems): void {
  const base = '/spec/settingsSchema';
  if (!isRecord(value) || value.type !== 'object') {
    problems.add(isRecord(value) ? at(base, 'type') : base, 'settingsSchema is required: a JSON Schema with type: object');
    return;
  }
  for (const problem of jsonSchemaProblems(value, base, { label: 'settingsSchema' })) {
    problems.add(problem.pointer, `settingsSchema is not usable (${problem.code}): ${problem.problem}`, problem.atKey ? { atKey: true } : {});
  }
}

