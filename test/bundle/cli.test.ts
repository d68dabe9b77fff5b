// End to end: the built CLI (`npm run build`, done by `npm test`) as a child process.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_BUNDLE, root, SPEC_BUNDLE, tempDir } from './helpers.js';

const RUN = join(root, 'bin/run.js');
const KEYS = join(root, 'fixtures/bundle/keys');

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  return new Promise((done) => {
    execFile(process.execPath, [RUN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', KERNOS_DATA: '', ...env } }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const json = (o: Outcome) => JSON.parse(o.stdout);

beforeAll(() => {
  if (!existsSync(join(root, 'dist/commands/bundle/validate.js'))) throw new Error('build first: npm run build (npm test does it)');
});

describe('package-sdk keys', () => {
  it('generates, trusts and lists a key', async () => {
    const dir = tempDir();
    const made = json(await cli(['keys', 'generate', '--out', 'publisher', '--json'], dir));
    expect(made.key_id).toMatch(/^key_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(statSync(join(dir, 'publisher.key')).mode & 0o777).toBe(0o600);
    const trusted = json(await cli(['keys', 'trust', 'publisher.pub', '--data', 'data', '--json'], dir));
    expect(trusted).toEqual({ key_id: made.key_id, trusted_file: join(dir, 'data/keys/trusted', `${made.key_id}.pub`) });
    const listed = await cli(['keys', 'list', '--data', 'data'], dir);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(made.key_id);
    expect(listed.stdout).toContain(made.public_key);
  });

  it('refuses a file that is not a key with key_invalid, exit 1', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'junk.pub'), 'hello');
    const out = await cli(['keys', 'trust', 'junk.pub', '--data', 'data', '--json'], dir);
    expect(out.code).toBe(1);
    expect(json(out).error).toMatchObject({ code: 'key_invalid' });
  });
});

describe('package-sdk bundle sign / verify', () => {
  it('signs the reference bundle with the RFC 8032 key exactly as kernos, and verifies it', async () => {
    const dir = tempDir();
    copyFileSync(REFERENCE_BUNDLE, join(dir, 'bundle.json'));
    const signed = await cli(['bundle', 'sign', 'bundle.json', '--key', join(KEYS, 'rfc8032.key'), '--json'], dir);
    expect(signed.code).toBe(0);
    expect(json(signed)).toMatchObject({ file: 'bundle.sig.json', sha256: '6e3923331cd7bf271c2d53d2e90365ea62c739f17a7a85b6e3fc4c18b641b6e9' });
    expect(JSON.parse(readFileSync(join(dir, 'bundle.sig.json'), 'utf8')).signature)
      .toBe('Y7wDGcPN52jQRvqvqZw1dR1ljJWL6EZmw6NV3luvAR5HeVa0m9UpzyptC34W9B2fomCwG5ZTxuggmzFtRRk5Cw');
    await cli(['keys', 'trust', join(KEYS, 'rfc8032.pub'), '--data', 'data'], dir);
    const verified = await cli(['bundle', 'verify', 'bundle.json', '--trust', 'data', '--json'], dir);
    expect(verified.code).toBe(0);
    expect(json(verified)).toMatchObject({ ok: true, key_id: 'key_01hrfc8032test100000000000' });
  });

  it.each([
    ['a tampered bundle', 'tamper', 'signature does not verify over the canonical bundle'],
    ['an untrusted key', 'untrusted', 'key key_01hrfc8032test100000000000 is not trusted'],
    ['a padded signature', 'pad', 'signature does not verify over the canonical bundle'],
    ['a key trusted under the same id but another key', 'wrong-key', 'signature does not verify over the canonical bundle'],
  ])('refuses %s with bundle_signature_invalid, exit 1', async (_, how, message) => {
    const dir = tempDir();
    copyFileSync(REFERENCE_BUNDLE, join(dir, 'bundle.json'));
    await cli(['bundle', 'sign', 'bundle.json', '--key', join(KEYS, 'rfc8032.key')], dir);
    if (how !== 'untrusted' && how !== 'wrong-key') await cli(['keys', 'trust', join(KEYS, 'rfc8032.pub'), '--data', 'data'], dir);
    if (how === 'tamper') writeFileSync(join(dir, 'bundle.json'), readFileSync(REFERENCE_BUNDLE, 'utf8').replace('Provisions."', 'Provisions!"'));
    if (how === 'pad') {
      const sig = JSON.parse(readFileSync(join(dir, 'bundle.sig.json'), 'utf8'));
      writeFileSync(join(dir, 'bundle.sig.json'), JSON.stringify({ ...sig, signature: `${sig.signature}==` }));
    }
    if (how === 'wrong-key') {
      const other = json(await cli(['keys', 'generate', '--out', 'other', '--json'], dir));
      writeFileSync(join(dir, 'impostor.pub'), JSON.stringify({ key_id: 'key_01hrfc8032test100000000000', public_key: other.public_key }));
      await cli(['keys', 'trust', 'impostor.pub', '--data', 'data'], dir);
    }
    const out = await cli(['bundle', 'verify', 'bundle.json', '--trust', 'data', '--json'], dir);
    expect(out.code).toBe(1);
    expect(json(out).error).toMatchObject({ code: 'bundle_signature_invalid', message });
    const text = await cli(['bundle', 'verify', 'bundle.json', '--trust', 'data'], dir);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(message);
  });

  it('validates before signing unless --no-validate', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'b.json'), readFileSync(SPEC_BUNDLE, 'utf8').replace('"version": "2.1.0"', '"version": "2.1"'));
    const refused = await cli(['bundle', 'sign', 'b.json', '--key', join(KEYS, 'rfc8032-seed.hex'), '--json'], dir);
    expect(refused.code).toBe(1);
    expect(json(refused).error).toMatchObject({ code: 'bundle_invalid', details: { path: 'version' } });
    expect(existsSync(join(dir, 'b.sig.json'))).toBe(false);
    const signed = await cli(['bundle', 'sign', 'b.json', '--key', join(KEYS, 'rfc8032-seed.hex'), '--no-validate', '--out', 'sig.json'], dir);
    expect(signed.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'sig.json'), 'utf8')).key_id).toBe('rfc8032-seed');
  });
});

describe('package-sdk bundle validate', () => {
  it('reports every error with file:line:col, and exits 1', async () => {
    const dir = tempDir();
    const bundle = JSON.parse(readFileSync(SPEC_BUNDLE, 'utf8'));
    bundle.name = 'Bad.Name';
    delete bundle.workflows.intake.steps[3].idempotency_key;
    writeFileSync(join(dir, 'b.json'), JSON.stringify(bundle, null, 2));
    const out = await cli(['bundle', 'validate', 'b.json', join(REFERENCE_BUNDLE), '--json'], dir);
    expect(out.code).toBe(1);
    const result = json(out);
    expect(result.ok).toBe(false);
    expect(result.errors.map((e: { details: { path: string }; file: string; line: number }) => [e.details.path, e.file, e.line]))
      .toEqual([['name', 'b.json', 3], ['workflows.intake.steps.3.idempotency_key', 'b.json', 142]]);
    expect(result.bundles[1]).toMatchObject({ ok: true, name: 'halcyon.finance.invoice_intake', workflows: 5, steps: 19 });
    const text = await cli(['bundle', 'validate', 'b.json'], dir);
    expect(text.stdout).toContain('b.json:3:11: error name_invalid: name: name must be at most 120 characters');
  });

  it('--first prints the control plane single error in its words', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'b.json'), readFileSync(SPEC_BUNDLE, 'utf8').replace('"tier": "cheap"', '"tier": "huge"').replace('"version": "2.1.0"', '"version": "1.0"'));
    const out = await cli(['bundle', 'validate', 'b.json', '--first'], dir);
    expect(out.code).toBe(1);
    expect(out.stdout.trim()).toBe('b.json: error: bundle is invalid at version: version "1.0" is not a semantic version MAJOR.MINOR.PATCH');
  });

  it('exits 0 on a valid bundle and 2 on a file that is not JSON or is missing', async () => {
    const dir = tempDir();
    expect((await cli(['bundle', 'validate', REFERENCE_BUNDLE], dir)).code).toBe(0);
    writeFileSync(join(dir, 'x.json'), '{"format": ');
    const notJson = await cli(['bundle', 'validate', 'x.json', '--json'], dir);
    expect(notJson.code).toBe(2);
    expect(json(notJson).errors).toMatchObject([{ code: 'invalid_json', file: 'x.json', line: 1, column: 12 }]);
    expect((await cli(['bundle', 'validate', 'missing.json'], dir)).code).toBe(2);
  });
});

describe('package-sdk bundle run', () => {
  it('prints a trace and exits 1 when the run fails after compensating', async () => {
    const dir = tempDir();
    const args = ['bundle', 'run', REFERENCE_BUNDLE, '--mock', '--workflow', 'double_post_then_fail', '--input', join(root, 'fixtures/bundle/input.json'),
      '--tools', join(root, 'fixtures/bundle/tools.json')];
    const out = await cli(args, dir);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('compensations (newest first):');
    expect(out.stdout.trim().split('\n').at(-1)).toBe('run failed at step boom: tool_failed: the gateway test tool fails deterministically');
    const trace = json(await cli([...args, '--json'], dir));
    expect(trace.compensations.map((c: { id: string }) => c.id)).toEqual(['post_b', 'post_a']);
  });

  it('needs --mock (exit 2)', async () => {
    const out = await cli(['bundle', 'run', REFERENCE_BUNDLE, '--workflow', 'intake', '--input', '{}'], tempDir());
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('pass --mock');
  });
});

describe('help', () => {
  it.each(['bundle validate', 'bundle sign', 'bundle verify', 'bundle apply', 'bundle list', 'bundle show', 'bundle run', 'keys generate', 'keys trust', 'keys list'])(
    '%s has examples and --json', async (command) => {
      const out = await cli([...command.split(' '), '--help'], root);
      expect(out.code).toBe(0);
      expect(out.stdout).toContain(`$ package-sdk ${command}`);
      expect(out.stdout).toContain('--json');
    },
  );
});
