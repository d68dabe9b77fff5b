import { describe, expect, it } from 'vitest';
import { findCredentialMaterial, isSecretLikeName } from '../../src/check/secrets.js';

describe('isSecretLikeName', () => {
  it.each(['apiToken', 'smtpPassword', 'apiKey', 'client_secret', 'tokenizerMode', 'PRIVATE-KEY', 'db_passwd', 'Authorization', 'credentials'])(
    '%s is a secret name',
    (name) => expect(isSecretLikeName(name)).toBe(true),
  );
  it.each(['secretRef', 'secret_ref', 'routingKey', 'keyword', 'account', 'baseUrl', 'callsPerMinute'])(
    '%s is not',
    (name) => expect(isSecretLikeName(name)).toBe(false),
  );
});

describe('findCredentialMaterial', () => {
  const cases: [string, string, string][] = [
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE', 'PEM private key', '-----BEGIN RSA PRIVATE KEY-----'],
    ['key: sk-proj-abcdefghijklmnopqrstuvwx', 'sk-/rk-', 'sk-proj-abcdefghijklmnopqrstuvwx'],
    ['use ghp_0123456789abcdefghijklmnopqrstuvwxyz here', 'GitHub', 'ghp_0123456789abcdefghijklmnopqrstuvwxyz'],
    ['xoxb-123456789012-abcdefABCDEF', 'Slack', 'xoxb-123456789012-abcdefABCDEF'],
    ['AKIAIOSFODNN7EXAMPLE', 'AWS', 'AKIAIOSFODNN7EXAMPLE'],
    ['AIzaSyA-0123456789abcdefghijklmnopqrstu', 'Google', 'AIzaSyA-0123456789abcdefghijklmnopqrstu'],
    ['Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345', 'bearer', 'Bearer abcdefghijklmnopqrstuvwxyz012345'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'JSON Web Token', 'eyJhbGciOiJIUzI1NiJ9'],
    ['host=db password=hunter2hunter2hunter2', 'password assignment', 'password=hunter2hunter2hunter2'],
  ];
  it.each(cases)('finds %s', (text, kind, written) => {
    const found = findCredentialMaterial(text);
    expect(found?.kind).toContain(kind);
    expect(text.slice(found!.offset, found!.offset + found!.length)).toContain(written);
  });

  it.each([
    'Paste the API token from the admin page.',
    'https://{account}.example.com/oauth/token',
    'password=${DB_PASSWORD}',
    'token: {{payload.token}}',
    'Bearer tokens are entered in the console',
    'task-sk-review',
  ])('finds nothing in %s', (text) => expect(findCredentialMaterial(text)).toBeUndefined());

  it('reports the earliest match', () => {
    expect(findCredentialMaterial('AKIAIOSFODNN7EXAMPLE then -----BEGIN PRIVATE KEY-----')?.offset).toBe(0);
  });
});
