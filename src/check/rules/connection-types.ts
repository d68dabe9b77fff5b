import { defineRule } from '../rule.js';
import { isRecord } from '../../json/guards.js';

/**
 * What the core checks of a ConnectionType without a provider at hand (compat-package-sdk-check.md §2.4): the
 * account pattern compiles, and the token URL is a template over one placeholder whose host is an external DNS
 * name — the address the core sends the client secret to must not be steerable to a port or an IP literal.
 */
export const connectionTypes = defineRule({
  id: 'connection-types/statics',
  description: 'The account pattern of a connection type compiles, and its token URL template names an external host.',
  codes: {
    invalid_connection_type: {
      severity: 'error',
      summary: 'accountField.pattern is not a regular expression, or oauth2.tokenUrlTemplate is not an https template over an external DNS host.',
      message: (d: { field: string; value: string; problem: string }) => `${d.field} '${d.value}': ${d.problem}`,
    },
  },
  check(context) {
    for (const type of context.objects('ConnectionType')) {
      for (const field of CHECKED_FIELDS) {
        const value = field.read(type.spec);
        const problem = typeof value === 'string' ? field.problem(value) : undefined;
        if (typeof value !== 'string' || problem === undefined) continue;
        context.report('invalid_connection_type', { document: type.document, pointer: field.pointer }, { field: field.name, value, problem }, { hint: field.hint });
      }
    }
  },
});

/** The fields the core checks without a provider: where each is, why it would be refused, and the fix. */
const CHECKED_FIELDS: readonly {
  name: string;
  pointer: string;
  read: (spec: Record<string, unknown>) => unknown;
  problem: (value: string) => string | undefined;
  hint: string;
}[] = [
  {
    name: 'accountField.pattern',
    pointer: '/spec/accountField/pattern',
    read: (spec) => (isRecord(spec.accountField) ? spec.accountField.pattern : undefined),
    problem: (value) => patternProblem(value),
    hint: 'write a regular expression that the whole account matches, e.g. ^[a-z0-9-]+$',
  },
  {
    name: 'oauth2.tokenUrlTemplate',
    pointer: '/spec/oauth2/tokenUrlTemplate',
    read: (spec) => (isRecord(spec.oauth2) ? spec.oauth2.tokenUrlTemplate : undefined),
    problem: (value) => tokenUrlProblem(value),
    hint: 'e.g. https://{account}.provider.example/oauth/token or https://provider.example/oauth/token',
  },
];

function patternProblem(pattern: string): string | undefined {
  try {
    // Named groups as the core's Python writes them, `(?P<name>…)`, are named groups here too.
    new RegExp(pattern.replace(/\(\?P</g, '(?<'));
    return undefined;
  } catch (error) {
    return `not a regular expression (${(error as Error).message.replace(/^Invalid regular expression: /, '')})`;
  }
}

const ACCOUNT = '{account}';
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why a token URL template is refused, or undefined. Only https templates are the core's to check. */
export function tokenUrlProblem(template: string): string | undefined {
  if (!template.startsWith('https://')) return undefined;
  for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
    if (match[0] !== ACCOUNT) return `the only placeholder is {account}, not ${match[0]}`;
  }
  if (/[{}]/.test(template.split(ACCOUNT).join(''))) return 'its braces are not balanced';
  const authority = template.slice('https://'.length).split(/[/?#]/)[0] ?? '';
  if (authority.includes('@')) return 'the address has user info — the host comes right after https://';
  if (authority.includes(':') || authority.includes('[')) return 'the address has a port — the host is an external DNS name without a port';
  const labels = authority.split('.');
  if (authority.includes(ACCOUNT)) {
    if (labels.some((label) => label.includes(ACCOUNT) && label !== ACCOUNT)) return '{account} occupies whole labels of the host';
    if (labels.some((label) => label !== ACCOUNT && !DNS_LABEL.test(label))) return 'the labels of the host are DNS labels (a-z, 0-9, inner hyphens)';
    return undefined;
  }
  const last = labels[labels.length - 1] ?? '';
  if (labels.length < 2 || !labels.every((label) => DNS_LABEL.test(label)) || /^(?:\d+|0x[0-9a-f]+)$/.test(last)) {
    return 'the host is an external DNS name: two or more DNS labels, not an IP address';
  }
  return undefined;
}
