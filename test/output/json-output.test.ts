/**
 * The `--json` output of every command, run as a user runs it — the built CLI, once per command, on our own
 * fixtures and a real local core — is valid against its schema in schema/v1/cli/ (docs/json-output.md), and
 * its shape (keys and types, no values) matches the committed snapshot, so an added or removed field is a
 * reviewed diff. Commands that need no other's result run side by side.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliOutcome, ROOT, type RunningCli, runCli, scratchDir, startCli } from '../support/cli.js';
import { initializeOutcome } from '../lsp/client.js';
import { FIXTURES, overlay, overlayCase } from '../support/overlay.js';
import { CLI_SCHEMA_DIR, once, schemaErrors, schemaFileOf, shapeText } from './support.js';

const scratch = scratchDir('json-output-');
const copies = [scratch];
/** Servers still running when the tests end (a failed test never reached their stop). */
const running: RunningCli[] = [];
afterAll(async () => {
  await Promise.all(running.map((cli) => cli.stop()));
  copies.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

/** Nothing of the machine's environment reaches the commands: no token, no data directory, a cache of their own (a resident checker started here is gone two idle minutes later). */
const ENV = { PACKAGE_SDK_CACHE: join(scratch, 'cache'), PACKAGE_SDK_RESIDENT_IDLE_MINUTES: '2', CP_TOKEN: undefined, KERNOS_DATA: undefined, KERNOS_SERVER: undefined, KERNOS_TOKEN: undefined };
const json = (args: string[], cwd = ROOT): Promise<CliOutcome> => runCli([...args, '--json'], { cwd, env: ENV });

const EXAMPLE = 'fixtures/example/packages/field-maintenance';
const BUNDLE = join(FIXTURES, 'bundle/spec.json');

/** A directory of its own under the scratch directory. */
function workDir(name: string): string {
  const dir = join(scratch, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A copy of a fixture that a command may write into. */
function copyOf(base: string, files: Record<string, string> = {}): string {
  const dir = overlay(base, files);
  copies.push(dir);
  return dir;
}

const parsed = async (outcome: Promise<CliOutcome>) => JSON.parse((await outcome).stdout) as Record<string, string>;

// Installation: lock, then prune the cache around that lock; plan, then apply that plan.
const lockCopy = once(async () => copyOf('example'));
const lock = once(async () => json(['lock', '--install', 'packages.yaml'], await lockCopy()));
const planCopy = once(async () => copyOf('example'));
const plan = once(async () => json(['plan', '--install', 'packages.yaml', '--server', 'local', '--env', 'example.env', '--out', 'plan.json'], await planCopy()));
const applied = once(async () => {
  await plan();
  return json(['apply', '--plan', 'plan.json', '--server', 'local', '--env', 'example.env', '--auto-approve'], await planCopy());
});

// Authoring: a new package, then a view added to it.
const authoring = once(async () => workDir('authoring'));
const init = once(async () => json(['init', 'demo'], await authoring()));

// Bundles and keys: a publisher key signs the bundle; the key is trusted by a served core, which takes the bundle.
const bundles = once(async () => {
  const dir = workDir('bundles');
  const bundle = JSON.parse(readFileSync(BUNDLE, 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'broken.json'), JSON.stringify({ ...bundle, version: 'two' }));
  return dir;
});
const keysGenerate = once(async () => json(['keys', 'generate', '--out', 'publisher'], await bundles()));
const bundleSign = once(async () => {
  await keysGenerate();
  return json(['bundle', 'sign', BUNDLE, '--key', 'publisher.key', '--out', 'spec.sig.json'], await bundles());
});
const core = once(async () => {
  const served = await startCli(['core', 'serve', '--data', workDir('core'), '--json'], { env: ENV });
  running.push(served);
  return { served, start: JSON.parse(served.firstLine) as { url: string; dataDir: string; token: string } };
});
const keysTrust = once(async () => {
  await keysGenerate();
  return json(['keys', 'trust', 'publisher.pub', '--data', (await core()).start.dataDir], await bundles());
});
const server = async () => {
  const { start } = await core();
  return ['--server', start.url, '--token', start.token];
};
const bundleApply = once(async () => {
  await Promise.all([bundleSign(), keysTrust()]);
  return json(['bundle', 'apply', BUNDLE, '--sig', 'spec.sig.json', ...(await server())], await bundles());
});
const bundleList = once(async () => {
  await bundleApply();
  return json(['bundle', 'list', ...(await server())]);
});
const bundleShow = once(async () => json(['bundle', 'show', (await parsed(bundleApply())).bundle_id!, ...(await server())]));
const keysList = once(async () => {
  await keysTrust();
  return json(['keys', 'list', '--data', (await core()).start.dataDir]);
});

// Editing: a copy of the hand-written package; every operation but set runs with --dry-run, side by side.
const editCopy = once(async () => join(copyOf('edit/packages'), 'intake'));
const edit = (operation: string, args: string[]) => async () => json(['edit', operation, ...args, ...(operation === 'set' ? [] : ['--dry-run'])], await editCopy());
const PROCESS = 'processes/intake.yaml';

// The resident checker of a working directory of its own: started by a first `check --resident`, asked, stopped.
const residentDir = once(async () => copyOf('example'));
const residentRunning = once(async () => {
  const cwd = await residentDir();
  await runCli(['check', '--resident'], { cwd, env: ENV }); // starts it in the background; this process checks
  for (let tries = 0; tries < 100; tries++) {
    const outcome = await json(['resident', 'status'], cwd);
    if ((JSON.parse(outcome.stdout) as { running: boolean }).running) return outcome;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('no resident checker started');
});

/** Every command of the manifest: how it is run, and the exit status it must end with. */
const COMMANDS: Record<string, { run: () => Promise<CliOutcome>; exit: number }> = {
  // errors, warnings and a suppressed finding in one report
  check: { exit: 1, run: () => {
    const laid = overlayCase(join(FIXTURES, 'check/table_rule_unreachable/invalid/catch-all-first'));
    copies.push(laid);
    return json(['check', 'fixtures/check/cli/broken/packages/shop', join(laid, 'packages/orders')]);
  } },
  lock: { exit: 0, run: lock },
  'cache:prune': { exit: 0, run: async () => {
    await lock();
    return json(['cache', 'prune', '--lock', join(await lockCopy(), 'packages.lock')], workDir('prune'));
  } },
  'resident:status': { exit: 0, run: residentRunning },
  'resident:stop': { exit: 0, run: async () => {
    await residentRunning();
    return json(['resident', 'stop'], await residentDir());
  } },
  plan: { exit: 0, run: plan },
  'plan:show': { exit: 0, run: async () => {
    await plan();
    return json(['plan', 'show', 'plan.json'], await planCopy());
  } },
  apply: { exit: 0, run: () => applied() },
  // two failing scenarios next to passing ones
  test: { exit: 1, run: async () => json(['test', 'packages/engine-demo'], copyOf('sandbox', {
    'packages/engine-demo/tests/status.test.yaml': readFileSync(join(FIXTURES, 'sandbox/failing/status.test.yaml'), 'utf8'),
    'packages/engine-demo/tests/mock-missing.test.yaml': readFileSync(join(FIXTURES, 'sandbox/failing/mock-missing.test.yaml'), 'utf8'),
  })) },
  // its start line is its only output: once the commands that use it are done, it stops and has printed nothing more
  'core:serve': { exit: 0, run: async () => {
    await Promise.all([bundleList(), bundleShow(), keysList()]);
    return (await core()).served.stop();
  } },
  init: { exit: 0, run: init },
  add: { exit: 0, run: async () => {
    await init();
    return json(['add', 'view', 'demo-board', '--package', 'demo'], await authoring());
  } },
  describe: { exit: 0, run: () => json(['describe', EXAMPLE]) },
  'edit:add-step': { exit: 0, run: edit('add-step', ['--file', PROCESS, '--in', 'review', '--step', '{id: note, set: {amount: data.amount}}']) },
  'edit:add-stage': { exit: 0, run: edit('add-stage', ['--file', PROCESS, '--stage', '{id: archive, steps: [{id: archived, complete: {outcome: archived}}]}']) },
  'edit:add-decision-row': { exit: 0, run: edit('add-decision-row', ['--file', PROCESS, '--table', 'lane', '--row', '{when: {amount: "[1000..2000)"}, then: {lane: full}}']) },
  'edit:add-rule': { exit: 0, run: edit('add-rule', ['--file', PROCESS, '--on-event', '{on: {observation: intake.withdrawn}, do: [{id: withdrawn, complete: {outcome: withdrawn}}]}']) },
  'edit:add-form-field': { exit: 0, run: edit('add-form-field', ['--file', PROCESS, '--step', 'review-request', '--name', 'comment', '--schema', '{type: string}']) },
  'edit:rename': { exit: 0, run: edit('rename', ['--file', PROCESS, '--from', 'review-request', '--to', 'assess-request']) },
  'edit:set': { exit: 0, run: edit('set', ['--file', PROCESS, '--path', '/spec/displayName', '--value', 'Intake of requests']) },
  // objects of the core the installation was applied to, back into package files
  export: { exit: 0, run: async () => {
    await applied();
    return json(['export', '--server', 'local', '--kind', 'Role', '--key', 'field-technician', '--package', 'exported'], await planCopy());
  } },
  workflow: { exit: 0, run: async () => json(['workflow'], copyOf('example')) },
  // the protocol on stdout: one answer to one request, then stdin ends and the server stops
  mcp: { exit: 0, run: () => runCli(['mcp', '--json'], { env: ENV, input: `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'json-output', version: '1' } } })}\n` }) },
  // the protocol framed by Content-Length on stdout: the body of the answer to initialize
  lsp: { exit: 0, run: () => initializeOutcome(copyOf('example')) },
  'docs:schema': { exit: 0, run: () => json(['docs', 'schema', '--out', workDir('docs')]) },
  'docs:package': { exit: 0, run: () => json(['docs', 'package', EXAMPLE]) },
  graph: { exit: 0, run: () => json(['graph', EXAMPLE]) },
  // a valid and an invalid bundle
  'bundle:validate': { exit: 1, run: async () => json(['bundle', 'validate', BUNDLE, 'broken.json'], await bundles()) },
  'bundle:sign': { exit: 0, run: bundleSign },
  'bundle:verify': { exit: 0, run: async () => {
    await bundleSign();
    return json(['bundle', 'verify', BUNDLE, '--sig', 'spec.sig.json', '--trust', 'publisher.pub'], await bundles());
  } },
  'bundle:apply': { exit: 0, run: bundleApply },
  'bundle:list': { exit: 0, run: bundleList },
  'bundle:show': { exit: 0, run: bundleShow },
  'bundle:run': { exit: 0, run: () => json(['bundle', 'run', BUNDLE, '--mock', '--workflow', 'intake',
    '--input', join(FIXTURES, 'bundle/input.json'), '--tools', join(FIXTURES, 'bundle/tools.json')]) },
  'keys:generate': { exit: 0, run: keysGenerate },
  'keys:trust': { exit: 0, run: keysTrust },
  'keys:list': { exit: 0, run: keysList },
};

/** The error object: a refusal with its details, a refusal of the plan commands, a command line that does not parse. */
const ERRORS: Record<string, { run: () => Promise<CliOutcome>; code: string; exit: number }> = {
  'bundle-refusal': { code: 'bundle_invalid', exit: 1, run: async () => {
    await keysGenerate();
    return json(['bundle', 'sign', 'broken.json', '--key', 'publisher.key'], await bundles());
  } },
  'plan-refusal': { code: 'plan_invalid', exit: 1, run: () => json(['apply', '--plan', BUNDLE]) },
  usage: { code: 'usage', exit: 2, run: () => json(['check', '--format', 'yaml']) },
};

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, { enableJsonFlag?: boolean }> };

describe('a schema for every command', () => {
  it('every command of oclif.manifest.json takes --json and is run here', () => {
    expect(Object.keys(COMMANDS).sort()).toEqual(Object.keys(manifest.commands).sort());
    expect(Object.entries(manifest.commands).filter(([, command]) => !command.enableJsonFlag).map(([id]) => id)).toEqual([]);
  });

  it('schema/v1/cli/ holds one schema per command, the error object and the finding', () => {
    const expected = [...Object.keys(manifest.commands).map(schemaFileOf), 'error.json', 'finding.json'].sort();
    expect(readdirSync(CLI_SCHEMA_DIR).sort()).toEqual(expected);
  });

  it('docs/json-output.md links every schema', () => {
    const doc = readFileSync(join(ROOT, 'docs/json-output.md'), 'utf8');
    expect(readdirSync(CLI_SCHEMA_DIR).filter((file) => !doc.includes(`](../schema/v1/cli/${file})`))).toEqual([]);
  });
});

describe.concurrent('--json of every command', () => {
  it.for(Object.keys(COMMANDS))('%s', async (id, { expect }) => {
    const { run, exit } = COMMANDS[id]!;
    const { code, stdout, stderr } = await run();
    expect(code, stderr).toBe(exit);
    const output: unknown = JSON.parse(stdout); // the whole of stdout is one JSON document
    expect(schemaErrors(schemaFileOf(id), output)).toBe('');
    await expect(shapeText(output)).toMatchFileSnapshot(`snapshots/json/${schemaFileOf(id).replace(/\.json$/, '.shape.json')}`);
  });

  it.for(Object.keys(ERRORS))('error object: %s', async (name, { expect }) => {
    const { run, code: errorCode, exit } = ERRORS[name]!;
    const { code, stdout } = await run();
    const output = JSON.parse(stdout) as { error: { code: string; exit: number } };
    expect(code).toBe(exit);
    expect(output.error).toMatchObject({ code: errorCode, exit });
    expect(schemaErrors('error.json', output)).toBe('');
    await expect(shapeText(output)).toMatchFileSnapshot(`snapshots/json/error-${name}.shape.json`);
  });
});
