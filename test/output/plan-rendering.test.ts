/**
 * What `plan` shows before anything is applied, as reviewed files (STYLE.md §3): the text of a first install
 * of the example (every section, everything added) and of changes to an installed package (the added,
 * changed and retired marks with their legend), planned in process against the embedded local core.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localCore } from '../../src/cli/local-core.js';
import { apply } from '../../src/plan/apply.js';
import { plan } from '../../src/plan/plan.js';
import { paintFor } from '../../src/report/paint.js';
import { renderPlan } from '../../src/report/plan.js';
import { layOver, overlay } from '../support/overlay.js';

const PLAIN = paintFor({ isTTY: false });
const copies: string[] = [];
afterAll(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Plan and apply of the installation `dir`/packages.yaml on a local core of its own; `env` holds the variables. */
function stand(base: string, env: { file?: string; values?: NodeJS.ProcessEnv }) {
  const dir = overlay(base);
  copies.push(dir);
  const common = { localCore, processEnv: env.values ?? {}, localDataDir: join(dir, '.package-sdk/core'), ...(env.file ? { env: join(dir, env.file) } : {}) };
  const out = join(dir, 'plan.json');
  return {
    dir,
    /** The plan's text as `plan` prints it (without the lines saying where it was saved). */
    async planText(): Promise<string> {
      const { document, warnings } = await plan({ install: join(dir, 'packages.yaml'), server: 'local', out, ...common });
      return `${renderPlan(document, PLAIN, warnings)}\n`;
    },
    apply: () => apply({ plan: out, autoApprove: true, ...common }),
  };
}

/** The content of `file` in `dir` with `from` replaced by `to`. */
function edited(dir: string, file: string, from: string, to: string): string {
  const text = readFileSync(join(dir, file), 'utf8');
  expect(text, `${file} contains ${from}`).toContain(from);
  return text.replace(from, to);
}

describe('plan text', () => {
  it('of a first install: catalog, core, knowledge and notification sections, everything added', async () => {
    const example = stand('example', { file: 'example.env' });
    await expect(await example.planText()).toMatchFileSnapshot('snapshots/plan/first-install.txt');
  });

  it('of changes to an installed package: a new role, patches, a new task type version, a rule disabled', async () => {
    const frontdesk = stand('plan/installer', { values: { FRONTDESK_API: 'https://frontdesk.example.com/api' } });
    await frontdesk.planText();
    await frontdesk.apply();
    const pkg = join(frontdesk.dir, 'frontdesk');
    layOver(pkg, {
      'roles/visitor-host.yaml': 'apiVersion: taimen.ai/v1\nkind: Role\nkey: visitor-host\nspec:\n  name: Visitor host\n  description: Meets the visitors of a meeting\n',
      'roles/receptionist.yaml': edited(pkg, 'roles/receptionist.yaml', 'Greets visitors', 'Welcomes visitors'),
      'task-types/visitor-request.yaml': edited(pkg, 'task-types/visitor-request.yaml', 'A visitor asked', 'A visitor asks'),
      'rules/visitor-arrived.yaml': edited(pkg, 'rules/visitor-arrived.yaml', 'gets a request', 'gets a request\n  status: disabled'),
    });
    await expect(await frontdesk.planText()).toMatchFileSnapshot('snapshots/plan/changes.txt');
  });
});
