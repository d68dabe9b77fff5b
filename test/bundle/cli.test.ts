/**
 * The bundle and keys commands as a user runs them: the built CLI (`npm run build`, done by `npm test`) as a
 * child process, a few runs per command for what only the command does — flags, exit codes, text and --json
 * output. What the commands compute is tested in process (commands.test.ts, signature.test.ts, run.test.ts);
 * the help of every command is rendered by oclif in process from the built manifest.
 */
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Config, Help } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { trustKey } from '../../src/bundle/index.js';
import { type CliOutcome, runCli } from '../support/cli.js';
import { KEYS, REPAIR_BUNDLE, REPAIR_FACTS, REPAIR_INPUT, REPAIR_TOOLS, RFC_KEY_ID, root, SPEC_BUNDLE, tamperedRepairText, tempDir } from './helpers.js';

// KERNOS_DATA would choose the trust store of `bundle verify` and `keys list`: every run names its own.
const cli = (args: string[], cwd: string) => runCli(args, { cwd, env: { KERNOS_DATA: '' } });
const json = (o: CliOutcome) => JSON.parse(o.stdout);

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
  it('signs the repair-orders bundle with the RFC 8032 key, verifies it, and refuses it once tampered (exit 1)', async () => {
    const dir = tempDir();
    copyFileSync(REPAIR_BUNDLE, join(dir, 'bundle.json'));
    const signed = await cli(['bundle', 'sign', 'bundle.json', '--key', join(KEYS, 'rfc8032.key'), '--json'], dir);
    expect(signed.code).toBe(0);
    expect(json(signed)).toMatchObject({ file: 'bundle.sig.json', sha256: REPAIR_FACTS.sha256, signature: REPAIR_FACTS.rfc8032Signature });
    trustKey(join(KEYS, 'rfc8032.pub'), join(dir, 'data'));
    const verified = await cli(['bundle', 'verify', 'bundle.json', '--trust', 'data', '--json'], dir);
    expect(verified.code).toBe(0);
    expect(json(verified)).toMatchObject({ ok: true, key_id: RFC_KEY_ID });

    writeFileSync(join(dir, 'bundle.json'), tamperedRepairText());
    const message = 'signature does not verify over the canonical bundle';
    const refused = await cli(['bundle', 'verify', 'bundle.json', '--trust', 'data', '--json'], dir);
    expect(refused.code).toBe(1);
    expect(json(refused).error).toMatchObject({ code: 'bundle_signature_invalid', message });
    const text = await cli(['bundle', 'verify', 'bundle.json', '--trust', 'data'], dir);
    expect(text.code).toBe(1);
    expect(text.stderr).toContain(message);
  });
});

describe('package-sdk bundle validate', () => {
  it('exits 0 on a valid bundle and prints its summary', async () => {
    const out = await cli(['bundle', 'validate', REPAIR_BUNDLE], tempDir());
    expect(out.code).toBe(0);
    expect(out.stdout.trim().split('\n')).toEqual([`${REPAIR_BUNDLE}: ok — brightwater.workshop.repair_orders@1.4.0 (workshop): 5 workflows, 20 steps`, '0 errors, 0 warnings']);
  });

  it('reports every error with file:line:col, and exits 1', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'b.json'), readFileSync(SPEC_BUNDLE, 'utf8').replace('"name": "acme.finance.invoices"', '"name": "Bad.Name"'));
    const out = await cli(['bundle', 'validate', 'b.json', '--json'], dir);
    expect(out.code).toBe(1);
    expect(json(out)).toMatchObject({ ok: false, errors: [{ code: 'bundle_invalid', file: 'b.json', line: 3, column: 11, details: { path: 'name' } }] });
  });

  it('exits 2 on a file that is not JSON', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'x.json'), '{"format": ');
    const out = await cli(['bundle', 'validate', 'x.json'], dir);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain('x.json:1:12');
  });
});

describe('package-sdk bundle run', () => {
  it('prints a trace and exits 1 when the run fails after compensating', async () => {
    const out = await cli(['bundle', 'run', REPAIR_BUNDLE, '--mock', '--workflow', 'reserve_twice_then_break', '--input', REPAIR_INPUT, '--tools', REPAIR_TOOLS], tempDir());
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('compensations (newest first):');
    expect(out.stdout.trim().split('\n').at(-1)).toBe('run failed at step crash: tool_failed: the test tool breaks on purpose');
  });

  it('prints the trace under --json with the numbers as the bundle and the input write them', async () => {
    const out = await cli(['bundle', 'run', REPAIR_BUNDLE, '--mock', '--workflow', 'reserve_twice_then_break', '--input', REPAIR_INPUT, '--tools', REPAIR_TOOLS, '--json'], tempDir());
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('"quote": 1840.0,');
    expect(JSON.parse(out.stdout).steps[0]).toMatchObject({ id: 'triage', output: { quote: 1840, labour_hours: 3.5 } });
  });

  it('needs --mock (exit 2)', async () => {
    const out = await cli(['bundle', 'run', REPAIR_BUNDLE, '--workflow', 'repair', '--input', '{}'], tempDir());
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('pass --mock');
  });
});

/** oclif's help of a command as text, the way `--help` renders it (a help class is oclif's own extension point). */
class HelpText extends Help {
  of(command: Command.Loadable): string {
    return this.formatCommand(command);
  }
}

describe('help', () => {
  let loaded: Promise<{ config: Config; help: HelpText }> | undefined;
  const oclif = () => (loaded ??= Config.load({ root }).then((config) => ({ config, help: new HelpText(config, { stripAnsi: true }) })));

  it.each(['bundle validate', 'bundle sign', 'bundle verify', 'bundle apply', 'bundle list', 'bundle show', 'bundle run', 'keys generate', 'keys trust', 'keys list'])(
    '%s has examples and --json', async (command) => {
      const { config, help } = await oclif();
      const found = config.findCommand(command.replace(' ', ':'));
      expect(found, command).toBeDefined();
      const text = help.of(found!);
      expect(text).toContain(`$ package-sdk ${command}`);
      expect(text).toContain('--json');
    },
  );
});
