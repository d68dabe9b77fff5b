import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, parseJson } from '../../src/bundle/index.js';
import { runBundle, type RunOptions } from '../../src/bundle/run.js';
import { renderString, renderValue, collectTemplates, TemplateError } from '../../src/bundle/template.js';
import type { JsonObject } from '../../src/bundle/json.js';
import { REFERENCE_BUNDLE, root, specText } from './helpers.js';

const tools = parseJson(readFileSync(join(root, 'fixtures/bundle/tools.json'), 'utf8')).value as JsonObject;
const input = parseJson(readFileSync(join(root, 'fixtures/bundle/input.json'), 'utf8')).value;
const reference = () => parseJson(readFileSync(REFERENCE_BUNDLE, 'utf8'));
const run = (workflow: string, options: Partial<RunOptions> = {}) => runBundle(reference(), { workflow, input, tools, ...options });

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
  it('runs intake to the end: mock outputs, a local decision, canned tool results and the idempotency key', () => {
    const trace = run('intake');
    expect(trace.status).toBe('completed');
    expect(trace.steps.map((s) => [s.id, s.status])).toEqual([['extract', 'completed'], ['code', 'completed'], ['propose_payment', 'completed'], ['post', 'completed']]);
    const [extract, , propose, post] = trace.steps;
    // the input's lexeme 7250.0 survives the mock's {"$ref": "input.total"}
    expect(canonicalJson(extract!.output!)).toBe('{"currency":"USD","description":"Milk delivery","invoice_id":"inv-1001","total":7250.0,"vendor":"Northwind Dairy"}');
    expect(extract!.prompt!.user).toBe('Invoice text:\nNorthwind Dairy, milk delivery, total 7250.00 USD');
    expect(propose!.output).toMatchObject({ decision: 'allow', rule: 'local', approval_id: null });
    expect((propose!.action as JsonObject).summary).toBe('Pay invoice inv-1001 to Northwind Dairy');
    expect(post!.idempotency_key).toBe('inv-1001');
    expect(post!.output).toEqual({ entry_id: 'je-inv-1001', posted: true });
  });

  it('compensates completed steps newest first when a step fails', () => {
    const trace = run('double_post_then_fail');
    expect(trace.status).toBe('failed');
    expect(trace.error).toEqual({ step: 'boom', code: 'tool_failed', message: 'the gateway test tool fails deterministically' });
    expect(trace.compensations.map((c) => [c.id, c.tool, c.status])).toEqual([['post_b', 'ledger.void_entry', 'completed'], ['post_a', 'ledger.void_entry', 'completed']]);
    expect(trace.compensations[0]!.args).toEqual({ entry_id: 'je-inv-1001', reason: 'run abandoned' });
  });

  it('stops at a denied action and approves with an approval id', () => {
    const denied = run('intake', { decide: 'deny' });
    expect(denied.error).toMatchObject({ step: 'propose_payment', code: 'action_denied' });
    expect(denied.steps.at(-1)!.status).toBe('failed');
    const approved = run('intake', { decide: 'approve' }).steps[2]!.output as JsonObject;
    expect(approved.rule).toBe(`approved:${approved.approval_id as string}`);
  });

  it('escalates low confidence and parks when the mock stays unsure', () => {
    const trace = run('intake', { confidence: { code: 0.2 } });
    expect(trace.status).toBe('parked');
    expect(trace.steps.at(-1)).toMatchObject({ id: 'code', status: 'parked', tiers: ['cheap', 'standard'] });
  });

  it('fails a step whose answer breaks its output schema', () => {
    const trace = run('intake', { confidence: { code: 3 } });
    expect(trace.error).toMatchObject({ step: 'code', code: 'output_invalid', message: 'the answer does not satisfy output_schema: confidence must be at most 1' });
  });

  it('follows on_refusal: park by default', () => {
    expect(run('intake', { refuse: ['extract'] }).steps[0]).toMatchObject({ status: 'parked', output: { text: 'I cannot help with this request.' } });
  });

  it('fails a tool step without a canned result, and a missing template path', () => {
    expect(run('intake', { tools: {} }).error).toMatchObject({ step: 'post', code: 'tool_result_missing' });
    const bundle = JSON.parse(specText());
    bundle.workflows.intake.steps[3].args.memo = '{{input.memo}}';
    const trace = runBundle(parseJson(JSON.stringify(bundle)), { workflow: 'intake', input, tools });
    expect(trace.error).toMatchObject({ step: 'post', code: 'template_missing_path' });
  });

  it('refuses an input that breaks input_schema, an unknown workflow and an invalid bundle', () => {
    expect(() => run('intake', { input: { invoice_id: '', text: 't', total: 1 } })).toThrow('input invoice_id must be at least 1 characters long');
    expect(() => run('nope')).toThrow(/workflow nope is not in the bundle/);
    expect(() => runBundle(parseJson('{"format":"x"}'), { workflow: 'w', input: {} })).toThrow(/bundle is invalid at format/);
  });
});
