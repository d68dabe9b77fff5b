/**
 * The diagram of a process: every process fixture drawn in Mermaid, DOT and SVG (Graphviz as WebAssembly, in
 * this process), every element named in the SVG; then what the picture says — shapes by kind, guards on the
 * edges with their full text on hover, deadlines with their calendars, decision tables linked to their decide
 * steps, stages opened by what their entry waits for, unreachable parts from check's findings, coverage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { check } from '../../src/check/index.js';
import { readCoverage, reachOfProcess } from '../../src/graph/coverage.js';
import { processDiagram, type Diagram } from '../../src/graph/diagram.js';
import { renderDot } from '../../src/graph/dot.js';
import { diagramOf, loadGraphTarget } from '../../src/graph/load.js';
import { renderMermaid } from '../../src/graph/mermaid.js';
import { renderSvg } from '../../src/graph/svg.js';
import { shortCel } from '../../src/graph/text.js';
import { unreachablePointers } from '../../src/graph/unreachable.js';
import { processModel } from '../../src/process/index.js';
import { runTests } from '../../src/sandbox/index.js';
import { FIXTURES, overlayCase } from '../support/overlay.js';
import { decodeEntities, processFixtures } from './fixtures.js';

const FIXTURE_PROCESSES = processFixtures();
const EXAMPLE = join(FIXTURES, 'example/packages/field-maintenance');
const YARD = join(FIXTURES, 'graph/packages/yard');

describe('every process fixture, in every format', () => {
  it('finds the process fixtures of every folder', () => {
    const folders = new Set(FIXTURE_PROCESSES.map((fixture) => fixture.name.split('/')[0]));
    expect([...folders].sort()).toEqual(['cel', 'check', 'core', 'example', 'graph', 'load', 'packages', 'sandbox', 'schema']);
    expect(FIXTURE_PROCESSES.length).toBeGreaterThanOrEqual(18);
  });

  it.each(FIXTURE_PROCESSES.map((fixture) => [fixture.name, fixture] as const))('%s: Mermaid, DOT and an SVG naming every element', async (_, fixture) => {
    const diagram = processDiagram(fixture.key, fixture.spec);
    expect(renderMermaid(diagram)).toMatch(/^flowchart TB\n/);
    const dot = renderDot(diagram);
    expect(dot).toMatch(new RegExp(`^digraph "${fixture.key}" \\{`));
    const svg = decodeEntities(await renderSvg(dot));
    expect(svg).toMatch(/<svg[^>]*>[\s\S]*<\/svg>\s*$/);
    for (const element of processModel(fixture.spec).elements) expect(svg, element.id).toContain(`id="${fixture.key}.${element.id}"`);
  });
});

describe('what the diagram draws', () => {
  let order: Diagram;
  let yard: Diagram;
  beforeAll(async () => {
    order = diagramOf((await loadGraphTarget(join(FIXTURES, 'sandbox/packages/engine-demo'))).processes[0]!);
    yard = diagramOf((await loadGraphTarget(YARD)).processes[0]!);
  });
  const node = (diagram: Diagram, name: string) => diagram.nodes.find((candidate) => candidate.name === name)!;
  const edges = (diagram: Diagram, from: string, to?: string) => diagram.edges.filter((edge) => edge.from === from && (to === undefined || edge.to === to));

  it('shapes steps by kind, a call of a process as a sub-process', () => {
    expect(Object.fromEntries(['check-order', 'approve-order', 'call-stock', 'classify', 'settle', 'hold', 'rejected', 'checks', 'reserve', 'await-payment', 'memo', 'done', 'undo'].map((name) => [name, node(order, name).kind])))
      .toEqual({ 'check-order': 'human', 'approve-order': 'approve', 'call-stock': 'call', classify: 'decide', settle: 'wait', hold: 'suspend', rejected: 'raise', checks: 'fork', reserve: 'try', 'await-payment': 'listen', memo: 'remember', done: 'complete', undo: 'compensate' });
    expect(node(yard, 'plan-lift')).toMatchObject({ kind: 'subprocess', lines: ['plan-lift', 'sub-process lift-plan'] });
    const dot = renderDot(yard);
    expect(dot).toContain('"plan-lift" [shape="box", peripheries=2');
    expect(dot).toContain('"ask-yard-agent" [shape="box"');
  });

  it('puts a guard on the edge into its step, its full text on hover, and an else way around it', () => {
    const guard = "data.approval == 'rejected'";
    expect(edges(order, 'approve-order', 'rejected')).toEqual([{ from: 'approve-order', to: 'rejected', label: "approval == 'rejected'", tooltip: `when ${guard}`, style: 'flow' }]);
    expect(edges(order, 'approve-order').find((edge) => edge.style === 'else')).toMatchObject({ label: 'else', tooltip: `otherwise (not ${guard})` });
    expect(renderDot(order)).toContain(`label="approval == 'rejected'", tooltip="when data.approval == 'rejected'"`);
  });

  it('shortens CEL at a word, dropping the noise of the profile', () => {
    expect(shortCel("data.?partsApproval.orValue('') == 'rejected'")).toBe("partsApproval == 'rejected'");
    expect(shortCel('stage.triage.completed && milestone.triaged || !data.safeToOperate')).toBe('triage completed and milestone triaged…');
    expect(shortCel('size(data.partsNeeded) > 0')).toBe('size(partsNeeded) > 0');
  });

  it('writes deadlines with the calendar that counts them', () => {
    expect(node(order, 'check-order').lines).toContain('due 2 working hours (office), warn PT30M before');
    expect(node(yard, 'ask-yard-agent').lines).toContain('due 4 working hours (yard-hours)');
    expect(order.lines).toEqual(['calendar office', 'due 2 workdays (office), warn 4 working hours before']);
  });

  it('links decision tables to the decide steps that read them', () => {
    expect(edges(order, 'classify', 'tier')).toEqual([{ from: 'classify', to: 'tier', style: 'table' }]);
    expect(node(order, 'tier')).toMatchObject({ kind: 'table', element: 'tier', cluster: ':decisions' });
  });

  it('opens a stage from what its entry waits for: a stage completed, a stage active, a milestone', () => {
    expect(edges(order, 'stage:intake:done', 'stage:approval:enter')).toMatchObject([{ label: 'intake completed', tooltip: 'entry: stage.intake.completed', style: 'entry' }]);
    expect(edges(yard, 'stage:delivery:enter', 'stage:supervision:enter')).toMatchObject([{ label: 'delivery active' }]);
    expect(edges(yard, 'site-ready', 'stage:delivery:enter')).toHaveLength(1);
    expect(edges(yard, ':start', 'stage:preparation:enter')).toHaveLength(1);
  });

  it('hangs fork branches, catch clauses, listen options and timeouts, compensation, timers and handlers off their owners', () => {
    expect(edges(order, 'checks').map((edge) => edge.to)).toEqual(['by-person', 'by-time']);
    expect(edges(yard, 'paperwork').map((edge) => edge.to)).toEqual(['join:/spec/stages/0/steps/2']);
    expect(edges(order, 'reserve', 'note-stock')).toMatchObject([{ label: 'catch out_of_stock', style: 'catch' }]);
    expect(edges(order, 'await-payment', 'mark-paid')).toMatchObject([{ label: 'on payment.received', tooltip: 'on payment.received where event.payload.orderId == data.orderId', style: 'event' }]);
    expect(edges(order, 'await-payment', 'unpaid')).toMatchObject([{ label: 'timeout P2D', style: 'timeout' }]);
    expect(edges(order, 'call-stock', 'release-stock')).toMatchObject([{ label: 'on compensate', style: 'compensate' }]);
    expect(edges(order, 'intake-reminder', 'remind-intake')).toHaveLength(1);
    expect(node(yard, 'hire-overdue')).toMatchObject({ kind: 'timer', cluster: ':timers', lines: ['at timestamp(returnAt)'] });
    expect(node(yard, 'extra-inspection').cluster).toBe('stage:preparation:discretionary');
    expect(node(yard, 'stage:delivery:done').lines).toEqual(['repeatable']);
    expect(node(yard, 'stage:preparation:done').lines).toEqual(['exit: siteReady']);
  });
});

describe('unreachable parts, from check', () => {
  it.each([
    ['unreachable_step/invalid/step-after-complete', ['notify', 'audit'], 'close'],
    ['unreachable_stage/invalid/entry-reads-only-unwritten-data', ['shipping'], 'review'],
    ['unreachable_milestone/invalid/when-is-false', ['never'], 'review'],
  ])('%s: greys what check reports and what follows it', async (name, unreachable, reachable) => {
    const dir = overlayCase(join(FIXTURES, 'check', name));
    const target = await loadGraphTarget(join(dir, 'packages/orders'), dir);
    const diagram = diagramOf(target.processes[0]!);
    const elements = [...diagram.nodes, ...diagram.clusters].filter((part) => part.element !== undefined);
    const status = (id: string) => elements.find((part) => part.element === id)?.status;
    for (const id of unreachable) if (elements.some((part) => part.element === id)) expect(status(id), id).toBe('unreachable');
    expect(status(reachable)).toBeUndefined();
    expect(target.processes[0]!.unreachable.length).toBeGreaterThan(0);
    expect(renderMermaid(diagram)).toMatch(/\n {2}class [^\n]* unreachable(\n|$)/);
  });

  it('marks the element a finding points into, its contents and the steps after it in its block', () => {
    const spec = processFixtures().find((fixture) => fixture.name.startsWith('sandbox/packages/engine-demo'))!.spec;
    const model = processModel(spec);
    const marked = unreachablePointers(model, ['/spec/stages/0/steps/2/id', '/nowhere']);
    expect([...marked]).toEqual(['/spec/stages/0/steps/2', '/spec/stages/0/steps/3']);
  });
});

describe('coverage of a test run', () => {
  it('marks what the scenarios of the example reached and missed', async () => {
    const { report } = await runTests({ packages: [EXAMPLE] });
    const coverage = readCoverage(JSON.parse(JSON.stringify(report)), 'results.json');
    const diagram = diagramOf((await loadGraphTarget(EXAMPLE)).processes[0]!, coverage);
    const missed = report.coverage[0]!.missed;
    const statusOf = (id: string) => [...diagram.nodes, ...diagram.clusters].find((part) => part.element === id)?.status;
    expect(missed.length).toBeGreaterThan(0);
    for (const id of missed) expect(statusOf(id), id).toBe('missed');
    expect(statusOf('diagnose')).toBe('reached');
    expect(statusOf('triage')).toBe('reached');
    expect(statusOf('dispatch-priority')).toBeUndefined(); // a table is no coverage element
  });

  it('reads the coverage however the report lists it', () => {
    const elements = ['a', 'b', 'c'];
    const reach = (report: unknown) => {
      const found = reachOfProcess(readCoverage(report, 'r.json'), 'p', 'k', elements);
      return found && { reached: [...found.reached], missed: [...found.missed] };
    };
    expect(reach({ coverage: [{ package: 'k', process: 'p', covered: 2, total: 3, percent: 66.7, missed: ['c'] }] })).toEqual({ reached: ['a', 'b'], missed: ['c'] });
    expect(reach({ coverage: [{ process: 'p', reached: ['a'], missed: ['b'] }] })).toEqual({ reached: ['a'], missed: ['b'] });
    expect(reach({ coverage: { 'k/p': { reached: [{ id: 'a' }], notReached: [{ id: 'c' }] } } })).toEqual({ reached: ['a'], missed: ['c'] });
    expect(reach({ tests: [{ subject: 'process', target: 'p', coverage: { missed: ['a', 'c'] } }, { subject: 'process', target: 'p', coverage: { missed: ['c'] } }] })).toEqual({ reached: ['b', 'a'], missed: ['c'] });
    expect(reach({ coverage: [{ process: 'other', missed: [] }] })).toBeUndefined();
  });

  it('refuses what is not a test report', () => {
    expect(() => readCoverage([1], 'r.json')).toThrow(expect.objectContaining({ code: 'coverage_invalid', exitCode: 2 }));
    expect(() => readCoverage({ ok: true }, 'r.json')).toThrow(/r\.json: not the output of package-sdk test --json: it has no coverage/);
  });
});

describe('targets', () => {
  it('draws a process file within its package, with check', async () => {
    const target = await loadGraphTarget(join(YARD, 'processes/crane-hire.yaml'));
    expect(target.processes.map((source) => [source.key, source.package])).toEqual([['crane-hire', 'yard']]);
    expect(target.notes).toEqual([]);
  });

  it('draws a file in no package without check, and says so', async () => {
    const target = await loadGraphTarget(join(FIXTURES, 'graph/loose/gate.process.yaml'));
    expect(target.processes.map((source) => source.key)).toEqual(['gate']);
    expect(target.notes[0]).toMatch(/is in no package: check's findings \(unreachable parts\) are not drawn/);
  });

  it('refuses a target that is not there or holds no process', async () => {
    await expect(loadGraphTarget('no/such/dir')).rejects.toMatchObject({ code: 'target_not_found', exitCode: 2 });
    await expect(loadGraphTarget(join(FIXTURES, 'example/packages.yaml'))).rejects.toMatchObject({ code: 'process_not_found' });
  });

  it('reads check findings by file, as check reports them', async () => {
    const { report } = await check({ paths: [EXAMPLE] });
    expect(report.errors).toEqual([]);
    expect(readFileSync(join(EXAMPLE, 'processes/work-order.yaml'), 'utf8')).toContain('key: work-order');
  });
});
