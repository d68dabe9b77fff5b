/**
 * The pictures as people see them, in a real headless Chromium: every Mermaid diagram (of every process fixture,
 * and of the README blocks of docs package) parsed by Mermaid's own parser; every SVG well-formed XML; the HTML
 * pages of graph, plan and test opened with a screenshot, every process / change / scenario on the page, no
 * script error and no request. The built CLI runs the commands a few times, as a user would.
 */
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageDocs } from '../../src/docs/package-readme.js';
import { processDiagram } from '../../src/graph/diagram.js';
import { renderDot } from '../../src/graph/dot.js';
import { renderMermaid } from '../../src/graph/mermaid.js';
import { renderSvg } from '../../src/graph/svg.js';
import { readPlanFile } from '../../src/plan/document.js';
import { planLines } from '../../src/report/plan.js';
import type { TestReport } from '../../src/sandbox/index.js';
import { runCli, scratchDir } from '../support/cli.js';
import { FIXTURES } from '../support/overlay.js';
import { startChromium, watchedPage, withMermaid } from './browser.js';
import { processFixtures } from './fixtures.js';

const EXAMPLE = join(FIXTURES, 'example');
const FIELD_MAINTENANCE = join(EXAMPLE, 'packages/field-maintenance');
let browser: Browser;
/** What the test reads of the browser's DOMParser. */
interface XmlParser {
  parseFromString(text: string, type: string): { querySelector(selector: string): { textContent: string | null } | null; documentElement: { nodeName: string } };
}
const scratch = scratchDir('package-sdk-graph-');

beforeAll(async () => {
  browser = await startChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** Opens `file` in the browser, takes a screenshot, and gives the page's text and what went wrong on it. */
async function open(file: string): Promise<{ text: string; errors: string[]; requests: string[]; ids: string[] }> {
  const { page, errors, requests } = await watchedPage(browser);
  await page.goto(`file://${file}`);
  const shot = `${file}.png`;
  await page.screenshot({ path: shot, fullPage: true, timeout: 60_000 });
  expect(statSync(shot).size).toBeGreaterThan(10_000);
  const text = (await page.evaluate('document.body.innerText')) as string;
  const ids = (await page.evaluate("[...document.querySelectorAll('svg [id]')].map((element) => element.id)")) as string[];
  await page.close();
  return { text, errors, requests: requests.filter((url) => url !== `file://${file}`), ids };
}

describe('Mermaid, by its own parser', () => {
  it('parses the diagram of every process fixture, and rejects a broken one', async () => {
    const { page, errors } = await watchedPage(browser);
    const parse = await withMermaid(page);
    expect(await parse('flowchart TB\n  a -->')).toMatch(/Parse error/);
    for (const fixture of processFixtures()) expect(await parse(renderMermaid(processDiagram(fixture.key, fixture.spec))), fixture.name).toBeUndefined();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('parses the diagrams docs package puts in a README', async () => {
    const { page } = await watchedPage(browser);
    const parse = await withMermaid(page);
    for (const dir of [join(FIXTURES, 'packages/venue-booking'), FIELD_MAINTENANCE]) {
      const { diagrams } = await packageDocs(dir);
      const blocks = [...diagrams.matchAll(/```mermaid\n([\s\S]*?)\n```/g)].map((match) => match[1]!);
      expect(blocks.length).toBeGreaterThan(0);
      for (const block of blocks) expect(await parse(block)).toBeUndefined();
    }
    await page.close();
  });
});

describe('SVG', () => {
  it('is well-formed XML for every process fixture', async () => {
    const { page } = await watchedPage(browser);
    for (const fixture of processFixtures()) {
      const svg = await renderSvg(renderDot(processDiagram(fixture.key, fixture.spec)));
      const problem = await page.evaluate((text) => {
        const parsed = new (globalThis as unknown as { DOMParser: new () => XmlParser }).DOMParser().parseFromString(text, 'image/svg+xml');
        return parsed.querySelector('parsererror')?.textContent ?? (parsed.documentElement.nodeName === 'svg' ? undefined : parsed.documentElement.nodeName);
      }, svg);
      expect(problem, fixture.name).toBeUndefined();
    }
    await page.close();
  });
});

describe('package-sdk graph', () => {
  it('prints Mermaid, writes an SVG and a page with every process', async () => {
    const mermaid = await runCli(['graph', FIELD_MAINTENANCE]);
    expect(mermaid).toMatchObject({ code: 0, stderr: '' });
    expect(mermaid.stdout).toMatch(/^flowchart TB\n/);
    const svg = join(scratch, 'work-order.svg');
    expect(await runCli(['graph', join(FIELD_MAINTENANCE, 'processes/work-order.yaml'), '--format', 'svg', '--out', svg])).toMatchObject({ code: 0 });
    expect(readFileSync(svg, 'utf8')).toContain('id="work&#45;order.inspect&#45;site"');
    const html = join(scratch, 'processes.html');
    expect((await runCli(['graph', join(FIXTURES, 'sandbox/packages/engine-demo'), '--format', 'html', '--out', html])).code).toBe(0);
    const page = await open(html);
    expect(page).toMatchObject({ errors: [], requests: [] });
    expect(page.text).toContain('Order (order)');
    expect(page.ids).toContain('order.check-order');
  });

  it('refuses what it cannot draw, with a code and exit 2', async () => {
    expect(await runCli(['graph', 'no/such/package'])).toMatchObject({ code: 2, stderr: expect.stringContaining('error target_not_found: no/such/package: no such file or directory') });
    const coverage = join(scratch, 'not-a-report.json');
    cpSync(join(EXAMPLE, 'packages.yaml'), coverage);
    expect(await runCli(['graph', FIELD_MAINTENANCE, '--coverage', coverage])).toMatchObject({ code: 2, stderr: expect.stringContaining('error coverage_invalid') });
    expect((await runCli(['graph', FIELD_MAINTENANCE, '--format', 'png'])).code).toBe(2);
  });
});

describe('the page of a test run', () => {
  it('shows every scenario, the coverage drawn on the process, and what the scenarios missed', async () => {
    const html = join(scratch, 'tests.html');
    const run = await runCli(['test', '--package', FIELD_MAINTENANCE, '--json', '--html', html]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as TestReport;
    const page = await open(html);
    expect(page).toMatchObject({ errors: [], requests: [] });
    for (const test of report.tests) expect(page.text).toContain(test.name);
    expect(page.text).toContain(`${report.passed} passed, ${report.failed} failed`);
    for (const id of report.coverage[0]!.missed) expect(page.text).toContain(id);
    expect(page.ids).toContain('field-maintenance.work-order.inspect-site');
  });

  it('shows a failure with where it is written, expected and actual', async () => {
    const dir = join(scratch, 'failing');
    cpSync(join(FIXTURES, 'example'), dir, { recursive: true });
    const test = join(dir, 'packages/field-maintenance/tests/work-order-repaired.test.yaml');
    const original = readFileSync(test, 'utf8');
    const broken = original.replace(/outcome: repaired/, 'outcome: scrapped');
    expect(broken).not.toBe(original);
    writeFileSync(test, broken);
    const html = join(scratch, 'failing.html');
    const run = await runCli(['test', '--package', join(dir, 'packages/field-maintenance'), '--html', html]);
    expect(run.code).toBe(1);
    const page = await open(html);
    expect(page.errors).toEqual([]);
    expect(page.text).toMatch(/1 failed/);
    expect(page.text).toContain('expected');
    expect(page.text).toContain('"scrapped"');
  });
});

describe('the review page of a plan', () => {
  it('shows every change of a plan with its field-level difference, and plan show writes the same page', async () => {
    const dir = join(scratch, 'plan');
    cpSync(EXAMPLE, dir, { recursive: true });
    const cli = (args: string[]) => runCli(args, { cwd: dir });
    expect((await cli(['lock', '--install', 'packages.yaml'])).code).toBe(0);
    const first = await cli(['plan', '--install', 'packages.yaml', '--server', 'local', '--env', 'example.env', '--out', 'plan.json', '--html', 'plan.html']);
    expect(first.code).toBe(0);
    const { document } = await readPlanFile(join(dir, 'plan.json'));
    const page = await open(join(dir, 'plan.html'));
    expect(page).toMatchObject({ errors: [], requests: [] });
    for (const { lines } of planLines(document)) for (const line of lines) expect(page.text).toContain(line.text.split(' — ')[0]!.split(':')[0]!);
    expect(page.text).toContain('Plan: 28 to add, 0 to change, 0 to retire.');

    expect((await cli(['apply', '--plan', 'plan.json', '--server', 'local', '--env', 'example.env', '--auto-approve'])).code).toBe(0);
    const process = join(dir, 'packages/field-maintenance/processes/work-order.yaml');
    writeFileSync(process, readFileSync(process, 'utf8').replace('timeout: PT10M', 'timeout: PT15M').replace('displayName: Work order\n', 'displayName: Work order of a fault\n').replace('\n  version: 1\n', '\n  version: 2\n'));
    expect((await cli(['lock', '--install', 'packages.yaml'])).code).toBe(0);
    expect((await cli(['plan', '--install', 'packages.yaml', '--server', 'local', '--env', 'example.env', '--out', 'plan2.json'])).code).toBe(0);
    expect(await cli(['plan', 'show', 'plan2.json', '--html', 'plan2.html'])).toMatchObject({ code: 0, stdout: 'review page: plan2.html\n' });
    const changed = await open(join(dir, 'plan2.html'));
    expect(changed.errors).toEqual([]);
    expect(changed.text).toContain('Process/work-order: update');
    expect(changed.text).toContain('"Work order" → "Work order of a fault"');
    expect(changed.text).toMatch(/-\s+"timeout": "PT10M"/);
    expect(changed.text).toMatch(/\+\s+"timeout": "PT15M"/);
  });

  it('writes the page of a refusal too', async () => {
    const dir = join(scratch, 'refused');
    cpSync(EXAMPLE, dir, { recursive: true });
    expect((await runCli(['lock', '--install', 'packages.yaml'], { cwd: dir })).code).toBe(0);
    const refused = await runCli(['plan', '--install', 'packages.yaml', '--server', 'local', '--out', 'plan.json', '--html', 'plan.html'], { cwd: dir, env: { MAINTENANCE_WORKSPACE_ID: '' } });
    expect(refused.code).toBe(1);
    const page = await open(join(dir, 'plan.html'));
    expect(page.errors).toEqual([]);
    expect(page.text).toContain('Refused');
    expect(page.text).toContain('error variables_missing');
  });
});
