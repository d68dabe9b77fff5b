/**
 * Every command speaks to the terminal one way: a refusal or a usage problem is `error <code>: <message>` with
 * its hint on stderr (the error object on stdout under --json), exit 2 for a usage or I/O problem and 1 for a
 * refusal; `-h` is help; colours follow FORCE_COLOR and NO_COLOR as the Node.js ecosystem does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli, scratchDir } from '../support/cli.js';

const COMMANDS = Object.keys((JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> }).commands)
  .map((id) => id.split(':'));
const ESC = '\u001b[';

describe.concurrent('every command', () => {
  it.each(COMMANDS.map((words) => [words.join(' '), words]))('%s: an unknown flag is a usage error, exit 2, one line and a hint', async (name, words) => {
    const out = await runCli([...(words as string[]), '--no-such-flag']);
    expect(out.code, out.stderr).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toBe(`error usage: Nonexistent flag: --no-such-flag\n  hint: see package-sdk ${name} --help\n`);
  });

  it.each(COMMANDS.map((words) => [words.join(' '), words]))('%s: -h is help', async (_name, words) => {
    const out = await runCli([...(words as string[]), '-h']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('USAGE');
  });
});

describe.concurrent('refusals and I/O problems', () => {
  const cwd = scratchDir('terminal-');
  it.each([
    ['apply --plan missing.json', 2, 'error usage: Parsing --plan: No file found at missing.json'],
    ['plan --install missing.yaml --server local --out plan.json', 2, 'error usage: Parsing --install: No file found at missing.yaml'],
    ['lock --install missing.yaml', 2, 'error file_not_found: no installation file missing.yaml'],
    ['add bogus x', 2, "error unknown_kind: unknown kind 'bogus'"],
    ['describe /nonexist', 2, 'error package_not_found: /nonexist: no such directory'],
    ['bundle list --server http://127.0.0.1:9', 2, 'error server_unreachable: cannot reach the control plane'],
    ['keys list --data /nonexist', 2, 'error data_dir_missing: no data directory /nonexist'],
  ])('%s exits %i with %s', async (command, code, start) => {
    const out = await runCli(command.split(' '), { cwd });
    expect(out.code, out.stderr).toBe(code);
    expect(out.stderr.startsWith(start), out.stderr).toBe(true);
    const json = await runCli([...command.split(' '), '--json'], { cwd });
    expect(json.code).toBe(code);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: start.split(' ')[1]!.replace(':', ''), exit: code } });
  });
});

describe.concurrent('colours', () => {
  const refused = ['describe', '/nonexist'];
  it('FORCE_COLOR colours even into a pipe', async () => {
    expect((await runCli(refused, { env: { FORCE_COLOR: '1', NO_COLOR: undefined } })).stderr).toContain(ESC);
  });
  it('FORCE_COLOR=0 and NO_COLOR never colour', async () => {
    expect((await runCli(refused, { env: { FORCE_COLOR: '0' } })).stderr).not.toContain(ESC);
    expect((await runCli(refused, { env: { NO_COLOR: '1', FORCE_COLOR: undefined } })).stderr).not.toContain(ESC);
  });
});
