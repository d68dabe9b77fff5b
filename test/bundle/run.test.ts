import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJson, parseJson } from '../../src/bundle/index.js';
import { runBundle, type RunOptions } from '../../src/bundle/run.js';
import { renderString, renderValue, collectTemplates, TemplateError } from '../../src/bundle/template.js';
import type { JsonObject } from '../../src/json/parse.js';
import { REPAIR_INPUT, REPAIR_TOOLS, repairText, specText } from './helpers.js';

const tools = parseJson(readFileSync(REPAIR_TOOLS, 'utf8')).value as JsonObject;
const input = parseJson(readFileSync(REPAIR_INPUT, 'utf8')).value;
const run = (workflow: string, options: Partial<RunOptions> = {}) => runBundle(parseJson(repairText()), { workflow, input, tools, ...options });
const ids = (steps: readonly { id: string; status: string }[]) => steps.map((s) => [s.id, s.status]);

describe('templates (compat-kernos §5)', () => {
  const context = parseJson(`{"input": {"invoice_id": "inv-1001", "total": 7250.0, "lines": [{"amount": 5}]},
    "steps": {"extract": {"output": {"vendor": "Northwind Dairy", "tags": ["a", "b"]}}}, "run": {"id": "run_1"}}`).value;

  it('renders the repository example, numbers as their JSON', () => {
    const text = 'Pay {{input.invoice_id}} of {{ input.total }} to {{steps.extract.output.vendor}} {{steps.extract.output.tags}} {{input.lines.0.amount}}';
    expect(renderString(text, context)).toBe('Pay inv-1001 of 7250.0 to Northwind Dairy ["a","b"] 5');
  });

  it('collects paths in order and flags a bad $ref', () => {
    expect(collectTemplates(parseJson('{"a": "{{input.x}}", "b": {"$ref": "steps.s.output.y"}, "c": ["{{ run.id }}", "{{open"]}').value).uses.map((u) => u.path))
      .toEqual(['input.x', 'steps.s.output.y', 'run.id']);
    expect(collectTemplates(parseJson('{"$ref": 5}').value).badRefs).toEqual([[]]);
  });

  it('keeps types for $ref and, in mocks only, for a whole-string template', () => {
    const value = parseJson('{"t": {"$ref": "input.total"}, "s": "{{input.total}}", "literal": {"$ref": 1, "x": 2}}').value;
    expect(JSON.stringify(renderValue(value, context))).toBe('{"t":7250,"s":"7250.0","literal":{"$ref":1,"x":2}}');
    expect(JSON.stringify(renderValue(value, context, { wholeStringKeepsType: true }))).toBe('{"t":7250,"s":7250,"literal":{"$ref":1,"x":2}}');
  });

  it('fails on a missing path instead of rendering nothing', () => {
    expect(() => renderString('{{input.nope}}', context)).toThrow(TemplateError);
    expect(renderString('left {{ open', context)).toBe('left {{ open');
  });
});

describe('bundle run --mock', () => {
  it('runs repair to the end: mock outputs, a local decision, canned tool results and the idempotency key', () => {
    const trace = run('repair');
    expect(trace).toMatchObject({ status: 'completed', workflow: 'repair', bundle: { name: 'brightwater.workshop.repair_orders', version: '1.4.0' }, compensations: [] });
    expect(ids(trace.steps)).toEqual([['triage', 'completed'], ['pick_part', 'completed'], ['approve_spend', 'completed'], ['reserve', 'completed']]);
    const [triage, pick, approve, reserve] = trace.steps;
    // the input's lexeme 1840.0 survives the mock's {"$ref": "input.quote"}; "{{input.machine_id}}" alone keeps its type
    expect(canonicalJson(triage!.output!)).toBe('{"fault":"Split hydraulic hose on the boom","labour_hours":3.5,"machine_id":"TH-0912","quote":1840.0,"urgent":true}');
    expect(triage!.prompt!.user).toBe('Machine TH-0912 reported:\nBoom sinks slowly under load, oil under the cab.');
    expect(pick!.prompt).toMatchObject({ name: 'parts', user: 'Fault: Split hydraulic hose on the boom\nMachine: TH-0912\nIn stock: ["HX-3310","HX-3312","SEAL-88"]' });
    expect(approve!.output).toMatchObject({ decision: 'allow', rule: 'local', approval_id: null });
    expect(canonicalJson(approve!.action!)).toBe('{"amount":1840.0,"currency":"EUR","data_classes":[],"idempotency_key":"RO-4471","kind":"purchase.part","paths":[],'
      + '"summary":"Buy HX-3310 for repair order RO-4471","target":"stores","writes_to_system_of_record":true}');
    expect(approve!.idempotency_key).toBe('RO-4471');
    expect(reserve!.idempotency_key).toBe('RO-4471');
    expect(canonicalJson(reserve!.args!)).toBe('{"line":1,"machine":"TH-0912","order_id":"RO-4471","part":"HX-3310"}');
    expect(reserve!.output).toEqual({ reservation: 'res-RO-4471-1', reserved: true });
  });

  it('reads with a tool that writes nothing, books with a templated key and keeps the labour hours a number', () => {
    const trace = run('repair_in_bay');
    expect(trace.status).toBe('completed');
    const byId = Object.fromEntries(trace.steps.map((s) => [s.id, s]));
    // numbers stay lexemes of the JSON they came from: compare them canonically
    const seen = (id: string) => [byId[id]!.tool, byId[id]!.idempotency_key, canonicalJson(byId[id]!.args!), canonicalJson(byId[id]!.output!)];
    expect(seen('record')).toEqual(['fleet.read_machine', undefined, '{"machine":"TH-0912"}', '{"hours":4210,"model":"Telehandler T9"}']);
    expect(seen('book_bay')).toEqual(['planner.book_bay', 'bay-RO-4471', '{"hours":3.5,"order_id":"RO-4471"}', '{"booking":"bay-2-RO-4471"}']);
    expect(seen('settle')).toEqual(['test.stall', undefined, '{"ms":2500}', '{"stalled_ms":5}']);
  });

  it('compensates completed steps newest first when a step fails', () => {
    const trace = run('reserve_twice_then_break');
    expect(trace.status).toBe('failed');
    expect(trace.error).toEqual({ step: 'crash', code: 'tool_failed', message: 'the test tool breaks on purpose' });
    expect(trace.steps.map((s) => s.idempotency_key)).toEqual([undefined, undefined, 'RO-4471-1', 'RO-4471-2', undefined]);
    expect(trace.compensations.map((c) => [c.id, c.tool, c.status])).toEqual([['reserve_second', 'stores.release_part', 'completed'], ['reserve_first', 'stores.release_part', 'completed']]);
    expect(trace.compensations[0]!.args).toEqual({ reservation: 'res-RO-4471-2', reason: 'repair order withdrawn' });
    expect(trace.compensations[1]!.output).toEqual({ released: 'res-RO-4471-1' });
  });

  it('fails a first step with nothing to compensate', () => {
    expect(run('broken')).toMatchObject({ status: 'failed', error: { step: 'crash', code: 'tool_failed' }, compensations: [] });
  });

  it('stops at a denied action and approves with an approval id', () => {
    const denied = run('repair', { decide: 'deny' });
    expect(denied.error).toMatchObject({ step: 'approve_spend', code: 'action_denied', message: 'action purchase.part denied by the local decision (--decide deny)' });
    expect(denied.steps.at(-1)!.status).toBe('failed');
    const approved = run('repair', { decide: 'approve' }).steps[2]!.output as JsonObject;
    expect(approved.approval_id).toMatch(/^apr_/);
    expect(approved.rule).toBe(`approved:${approved.approval_id as string}`);
  });

  it('escalates low confidence of a prompt and parks when the mock stays unsure', () => {
    const trace = run('repair', { confidence: { parts: 0.2 } });
    expect(trace.status).toBe('parked');
    expect(trace.steps.at(-1)).toMatchObject({ id: 'pick_part', status: 'parked', tiers: ['cheap', 'standard'], output: { part: 'HX-3310', confidence: 0.2 } });
  });

  it('fails a step whose answer breaks its output schema', () => {
    const trace = run('repair', { confidence: { parts: 3 } });
    expect(trace.error).toMatchObject({ step: 'pick_part', code: 'output_invalid', message: 'the answer does not satisfy output_schema: confidence must be at most 1' });
  });

  it('follows on_refusal: park by default, the next tier on escalate, a failure on fail', () => {
    expect(run('repair', { refuse: ['triage'] }).steps[0]).toMatchObject({ status: 'parked', tiers: ['standard'], output: { text: 'I cannot help with this request.' } });
    expect(run('repair_in_bay', { refuse: ['triage'] })).toMatchObject({ status: 'parked', steps: [{ id: 'record' }, { id: 'triage', status: 'parked', tiers: ['standard', 'deep'] }] });
    const failed = run('manual_first', { refuse: ['triage'] });
    expect(failed).toMatchObject({ status: 'failed', error: { step: 'triage', code: 'model_refused' }, compensations: [] });
    expect(ids(failed.steps)).toEqual([['manual', 'completed'], ['triage', 'failed']]);
  });

  it('fails a tool step without a canned result, and a missing template path', () => {
    expect(run('repair', { tools: {} }).error).toMatchObject({ step: 'reserve', code: 'tool_result_missing' });
    const bundle = JSON.parse(specText());
    bundle.workflows.intake.steps[3].args.memo = '{{input.memo}}';
    const trace = runBundle(parseJson(JSON.stringify(bundle)), { workflow: 'intake', input: { invoice_id: 'inv-7', text: 'Blue Heron Bakery, 40.0 EUR', total: 40.0 }, tools: { 'ledger.post_entry': { entry_id: 'je-1' } } });
    expect(trace.error).toMatchObject({ step: 'post', code: 'template_missing_path' });
  });

  it.each([
    [{ order_id: '', machine_id: 'TH-1', report: 't', quote: 1 }, 'input order_id must be at least 1 characters long'],
    [{ order_id: 'WO-1', machine_id: 'TH-1', report: 't', quote: 1 }, 'input order_id must match the pattern ^RO-[0-9]+$'],
    [{ order_id: 'RO-1', machine_id: 'TH-1', report: 't', quote: 30000 }, 'input quote must be at most 25000.0'],
    [{ order_id: 'RO-1', machine_id: 'TH-1', report: 't', quote: 1, colour: 'red' }, 'input colour is not an allowed property'],
  ])('refuses the input %j: %s', (given, message) => {
    expect(() => run('repair', { input: given })).toThrow(message);
  });

  it('refuses an unknown workflow and an invalid bundle', () => {
    expect(() => run('nope')).toThrow('workflow nope is not in the bundle (it has repair, repair_in_bay, reserve_twice_then_break, manual_first, broken)');
    expect(() => runBundle(parseJson('{"format":"x"}'), { workflow: 'w', input: {} })).toThrow(/bundle is invalid at format/);
  });
});
