/** `package-sdk check` as a user runs it: the built CLI, exit codes, and each output format. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

const BROKEN = 'fixtures/check/cli/broken/packages/shop';
const EXAMPLE = 'fixtures/example/packages.yaml';

describe('package-sdk check (built CLI)', () => {
  it('passes the bundled example with exit 0 and a summary line', async () => {
    const { code, stdout } = await runCli(['check', '--install', EXAMPLE]);
    // The example's agents and a skill name installation variables without a default: the core's checks skip
    // them, and notes say so.
    expect(stdout.trim().split('\n').at(-1)).toMatch(/^ok: packages 1, objects \d+, tests \d+ \(\d+ notes\)$/);
    expect(code).toBe(0);
  });

  it('reports each mistake in compiler style with a code frame and a hint, and exits 1', async () => {
    const { code, stdout } = await runCli(['check', BROKEN]);
    expect(code).toBe(1);
    expect(stdout).toContain(`${BROKEN}/task-types/order-review.yaml:5:3: error schema_violation: unknown field 'displayNme' in spec`);
    expect(stdout).toContain('> 5 |   displayNme: Review an order\n    |   ^^^^^^^^^^');
    expect(stdout).toContain("hint: did you mean 'displayName'?");
    expect(stdout).toMatch(new RegExp(`${BROKEN}/processes/bad-yaml.yaml:\\d+:\\d+: error invalid_yaml: `));
    expect(stdout.trim().split('\n').at(-1)).toBe('failed: 2 errors, 1 finding suppressed — packages 1, objects 2, tests 0');
  });

  it('--json prints the report, suppressed findings listed apart', async () => {
    const { code, stdout } = await runCli(['check', BROKEN, '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ ok: false, packages: 1, objects: 2, tests: 0, warnings: [] });
    expect(report.errors.map((f: { code: string }) => f.code).sort()).toEqual(['invalid_yaml', 'schema_violation']);
    expect(report.errors.find((f: { code: string }) => f.code === 'schema_violation')).toEqual({
      code: 'schema_violation',
      severity: 'error',
      message: "unknown field 'displayNme' in spec",
      file: `${BROKEN}/task-types/order-review.yaml`,
      path: '/spec/displayNme',
      line: 5,
      column: 3,
      endLine: 5,
      endColumn: 13,
      hint: "did you mean 'displayName'?",
    });
    expect(report.suppressed).toMatchObject([{ code: 'schema_violation', path: '/spec/colour', line: 7, suppressed: true }]);
  });

  it('--format sarif is a SARIF 2.1.0 log with rules and regions', async () => {
    const { code, stdout } = await runCli(['check', BROKEN, '--format', 'sarif']);
    expect(code).toBe(1);
    const log = JSON.parse(stdout);
    expect(log.version).toBe('2.1.0');
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(['invalid_yaml', 'schema_violation']);
    const result = run.results.find((r: { message: { text: string } }) => r.message.text.includes('displayNme'));
    expect(result.locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: `${BROKEN}/task-types/order-review.yaml` },
      region: { startLine: 5, startColumn: 3, endLine: 5, endColumn: 13 },
    });
    expect(run.results.filter((r: { suppressions?: unknown }) => r.suppressions)).toHaveLength(1);
  });

  it('--format github prints workflow annotations', async () => {
    const { code, stdout } = await runCli(['check', BROKEN, '--format', 'github']);
    expect(code).toBe(1);
    expect(stdout).toContain(
      `::error file=${BROKEN}/task-types/order-review.yaml,line=5,col=3,endLine=5,endColumn=13,title=schema_violation::unknown field 'displayNme' in spec (did you mean 'displayName'?)`,
    );
    expect(stdout).not.toContain('colour');
  });

  it('--list-rules lists every code with its severity', async () => {
    const { code, stdout } = await runCli(['check', '--list-rules', '--json']);
    expect(code).toBe(0);
    const { codes } = JSON.parse(stdout);
    expect(codes.map((c: { code: string }) => c.code)).toEqual(expect.arrayContaining(['invalid_yaml', 'schema_violation', 'duplicate_object']));
  });

  it('exits 2 on usage errors and unreadable targets', async () => {
    expect((await runCli(['check', '--no-such-flag'])).code).toBe(2);
    const missing = await runCli(['check', '--install', 'no/such/packages.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toContain('no/such/packages.yaml:1:1: error read_failed');
  });
});
