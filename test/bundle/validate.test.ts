import { describe, expect, it } from 'vitest';
import { validateBundle } from '../../src/bundle/index.js';
import { repairText, specText } from './helpers.js';

type Bundle = Record<string, any>;
const spec = (): Bundle => JSON.parse(specText());
const steps = (b: Bundle) => b.workflows.intake.steps;

// compat-kernos §1.5: the control plane's own table of one mutation → the path of its first error.
const MUTATIONS: [string, (b: Bundle) => void, string][] = [
  ['format = "kernos.bundle/2"', (b) => { b.format = 'kernos.bundle/2'; }, 'format'],
  ['name = "Halcyon.Finance"', (b) => { b.name = 'Halcyon.Finance'; }, 'name'],
  ['version = "1.0"', (b) => { b.version = '1.0'; }, 'version'],
  ['prompts.extract.system with a template', (b) => { b.prompts.extract.system = 'hi {{input.text}}'; }, 'prompts.extract.system'],
  ['steps[0].prompt = "missing"', (b) => { steps(b)[0].prompt = 'missing'; }, 'workflows.intake.steps.0.prompt'],
  ['steps[3].tool = "crm.read"', (b) => { steps(b)[3].tool = 'crm.read'; }, 'workflows.intake.steps.3.tool'],
  ['no idempotency_key on a writing tool', (b) => { delete steps(b)[3].idempotency_key; }, 'workflows.intake.steps.3.idempotency_key'],
  ['steps[1].id = "extract" (duplicate)', (b) => { steps(b)[1].id = 'extract'; }, 'workflows.intake.steps.1.id'],
  ['steps[1].id = "1code"', (b) => { steps(b)[1].id = '1code'; }, 'workflows.intake.steps.1.id'],
  ['escalate without confidence', (b) => { delete steps(b)[1].output_schema.properties.confidence; }, 'workflows.intake.steps.1.escalate'],
  ['args.x = {"$ref": "secrets.key"}', (b) => { steps(b)[3].args.x = { $ref: 'secrets.key' }; }, 'workflows.intake.steps.3.args'],
  ['steps[0].kind = "script"', (b) => { steps(b)[0].kind = 'script'; }, 'workflows.intake.steps.0.kind'],
  ['forward reference in a prompt', (b) => { b.prompts.extract.user = '{{steps.code.output.account}}'; }, 'prompts.extract.user'],
  ['own output outside a compensation', (b) => { steps(b)[3].args.self = { $ref: 'steps.post.output.x' }; }, 'workflows.intake.steps.3.args'],
  ['compensation.tool = "crm.undo"', (b) => { steps(b)[3].compensation.tool = 'crm.undo'; }, 'workflows.intake.steps.3.compensation.tool'],
  ['action = {"amount": 1}', (b) => { steps(b)[2].action = { amount: 1 }; }, 'workflows.intake.steps.2.action.kind'],
  ['steps = []', (b) => { b.workflows.intake.steps = []; }, 'workflows.intake.steps'],
  ['mock.nope = {}', (b) => { b.mock.nope = {}; }, 'mock.nope'],
  ['tools[1].id duplicate', (b) => { b.tools[1].id = 'ledger.post_entry'; }, 'tools.1.id'],
  ['steps[0].tier = "huge"', (b) => { steps(b)[0].tier = 'huge'; }, 'workflows.intake.steps.0.tier'],
  ['description of 1 MiB', (b) => { b.description = 'x'.repeat(1_048_576); }, ''],
];

const validate = (b: Bundle) => validateBundle(JSON.stringify(b, null, 2), 'spec.json');

describe('the mutation table of compat-kernos §1.5', () => {
  it('starts from a valid bundle, whose {"$ref"} idempotency key only the acceptance validator refuses', () => {
    expect(validate(spec())).toMatchObject({ ok: true, errors: [], warnings: [{ rule: 'idempotency_key_ref', details: { path: 'workflows.intake.steps.3.idempotency_key' } }] });
  });

  it.each(MUTATIONS)('%s → %j', (_, mutate, path) => {
    const b = spec();
    mutate(b);
    const result = validate(b);
    expect(result.ok).toBe(false);
    expect(result.errors[0]).toMatchObject({ code: 'bundle_invalid', details: { path } });
  });

  it('reports the exact messages of the template rules', () => {
    const forward = spec();
    forward.prompts.extract.user = '{{steps.code.output.account}}';
    expect(validate(forward).errors[0]!.message).toBe('template path steps.code.output.account: code is not an earlier step');
    const root = spec();
    steps(root)[3].args.x = { $ref: 'secrets.key' };
    expect(validate(root).errors[0]!.message).toBe('template path secrets.key must start with input, steps or run');
    const bad = spec();
    steps(bad)[3].args.x = { $ref: 5 };
    expect(validate(bad).errors[0]).toMatchObject({ rule: 'template_bad_ref', details: { path: 'workflows.intake.steps.3.args' } });
  });
});

describe('all errors at once', () => {
  it('reports every offence in control-plane order, each with file:line:col at the offending value', () => {
    const b = spec();
    b.version = '1.0';
    steps(b)[0].tier = 'huge';
    delete steps(b)[3].idempotency_key;
    steps(b)[3].args.x = { $ref: 'secrets.key' };
    const text = JSON.stringify(b, null, 2);
    const { errors } = validateBundle(text, 'spec.json');
    expect(errors.map((e) => e.details.path)).toEqual([
      'version', 'workflows.intake.steps.0.tier', 'workflows.intake.steps.3.args', 'workflows.intake.steps.3.idempotency_key',
    ]);
    const lines = text.split('\n');
    const at = (e: (typeof errors)[number]) => lines[e.line! - 1]!.slice(e.column! - 1);
    expect(at(errors[0]!)).toBe('"1.0",');
    expect(at(errors[1]!)).toBe('"huge",');
    expect(at(errors[2]!)).toBe('{');
    expect(errors[2]!.pointer).toBe('/workflows/intake/steps/3/args/x');
    expect(lines[errors[2]!.line!]!.trim()).toBe('"$ref": "secrets.key"');
    expect(errors.every((e) => e.file === 'spec.json')).toBe(true);
  });

  it('visits maps in byte order: the first error is the one the control plane reports', () => {
    const b = spec();
    b.workflows = { zeta: { steps: [] }, Alpha: { steps: [] }, 'é': { steps: [] } };
    expect(validate(b).errors.map((e) => e.details.path)).toEqual(['workflows.Alpha.steps', 'workflows.zeta.steps', 'workflows.é.steps']);
  });

  it('locates a missing field at its parent object', () => {
    const text = '{\n  "format": "kernos.bundle/1",\n  "version": "1.0.0",\n  "workflows": {}\n}';
    const { errors } = validateBundle(text);
    expect(errors.map((e) => [e.details.path, e.line, e.column])).toEqual([['name', 1, 1], ['workflows', 4, 16]]);
  });

  it('reports text that is not JSON as invalid_json with a position, and a non-object at the root', () => {
    expect(validateBundle('{\n  "a": tru\n}', 'x.json').errors).toMatchObject([{ code: 'invalid_json', file: 'x.json', line: 2, column: 8 }]);
    expect(validateBundle('[1]').errors).toMatchObject([{ code: 'bundle_invalid', details: { path: '' } }]);
  });

  it('follows the Rust rules where the acceptance validator is stricter', () => {
    const b = spec();
    b.version = '1.0.0-';
    steps(b)[0].timeout_seconds = 30;
    delete steps(b)[0].output_schema;
    expect(validate(b).ok).toBe(true);
    steps(b)[0].timeout_seconds = 5.0;
    const text = JSON.stringify(b).replace('"timeout_seconds":5', '"timeout_seconds":5.0');
    expect(validateBundle(text).errors).toMatchObject([{ details: { path: 'workflows.intake.steps.0.timeout_seconds' } }]);
  });

  it('summarizes a valid bundle as kernos bundle validate prints it', () => {
    expect(validateBundle(repairText())).toMatchObject({
      ok: true, errors: [], warnings: [],
      summary: { name: 'brightwater.workshop.repair_orders', version: '1.4.0', department: 'workshop', workflows: 5, steps: 20 },
    });
  });
});

describe('warnings (never errors)', () => {
  /** The spec bundle with the idempotency key the acceptance validator wants: no warning of its own. */
  const spec = (): Bundle => {
    const b: Bundle = JSON.parse(specText());
    steps(b)[3].idempotency_key = '{{input.invoice_id}}';
    return b;
  };
  const rules = (b: Bundle) => validate(b).warnings.map((w) => [w.rule, w.details.path]);

  it('flags the acceptance validator rules', () => {
    const b = spec();
    b.version = '1.0.0+!!';
    delete b.policies;
    delete b.tools[2].writes;
    b.workflows.Intake = b.workflows.intake;
    delete b.workflows.intake;
    delete b.workflows.Intake.input_schema;
    b.workflows.Intake.steps[1].escalate.when_confidence_below = 7;
    b.workflows.Intake.steps[2].action.summary = 'by {{run.who}}';
    const result = validate(b);
    expect(result.ok).toBe(true);
    expect(rules(b)).toEqual([
      ['version_not_strict_semver', 'version'],
      ['policies_missing', 'policies'],
      ['tool_writes_missing', 'tools.2.writes'],
      ['workflow_name_invalid', 'workflows.Intake'],
      ['input_schema_missing', 'workflows.Intake.input_schema'],
      ['confidence_threshold_range', 'workflows.Intake.steps.1.escalate.when_confidence_below'],
      ['template_run_field_unknown', 'workflows.Intake.steps.2.action'],
    ]);
  });

  it('checks input_schema against the supported subset', () => {
    const b = spec();
    b.workflows.intake.input_schema.required.push('currency');
    b.workflows.intake.input_schema.properties.text.format = 'email';
    b.workflows.intake.input_schema.properties.total.type = 'decimal';
    expect(rules(b)).toEqual([
      ['input_schema_unsupported', 'workflows.intake.input_schema.properties.text.format'],
      ['input_schema_invalid', 'workflows.intake.input_schema.properties.total.type'],
      ['input_schema_invalid', 'workflows.intake.input_schema.required'],
    ]);
  });

  it('checks mock outputs against the output schema, leaving templated values alone', () => {
    const b = spec();
    b.mock.code.confidence = 'high';
    delete b.mock.extract.currency;
    const warnings = validate(b).warnings;
    expect(warnings.map((w) => [w.rule, w.details.path])).toEqual([
      ['mock_output_invalid', 'mock.extract.currency'],
      ['mock_output_invalid', 'mock.code.confidence'],
    ]);
    expect(warnings[1]!.message).toBe('the mock output does not satisfy the output_schema of step code: confidence expected number, got string');
  });

  it('flags templates that name fields a step output or the input does not declare', () => {
    const b = spec();
    steps(b)[3].args.memo = '{{steps.extract.output.memo}} {{steps.propose_payment.output.decision}} {{input.note}}';
    expect(rules(b)).toEqual([
      ['template_field_undeclared', 'workflows.intake.steps.3.args'],
      ['template_field_undeclared', 'workflows.intake.steps.3.args'],
    ]);
    expect(validate(b).warnings.map((w) => w.message)).toEqual([
      'template path steps.extract.output.memo names a field that the output of step extract does not declare',
      'template path input.note names a field that input_schema does not declare',
    ]);
  });
});

describe('warnings of the acceptance validator on what the control plane lets pass', () => {
  const lintFree = (): Bundle => {
    const b: Bundle = JSON.parse(specText());
    steps(b)[3].idempotency_key = '{{input.invoice_id}}';
    return b;
  };
  const rules = (b: Bundle) => validate(b).warnings.map((w) => [w.rule, w.details.path]);

  it.each([
    ['department: null', (b: Bundle) => void (b.department = null), 'department_null', 'department'],
    ['an empty idempotency_key', (b: Bundle) => void (steps(b)[3].idempotency_key = ''), 'idempotency_key_empty', 'workflows.intake.steps.3.idempotency_key'],
    ['a {"$ref"} idempotency_key', (b: Bundle) => void (steps(b)[3].idempotency_key = { $ref: 'input.invoice_id' }), 'idempotency_key_ref', 'workflows.intake.steps.3.idempotency_key'],
    ['scope: null', (b: Bundle) => void (steps(b)[3].scope = null), 'scope_null', 'workflows.intake.steps.3.scope'],
    ['no args', (b: Bundle) => void delete steps(b)[3].args, 'args_missing', 'workflows.intake.steps.3.args'],
    ['no compensation.args', (b: Bundle) => void delete steps(b)[3].compensation.args, 'compensation_args_missing', 'workflows.intake.steps.3.compensation.args'],
    ['action.kind ""', (b: Bundle) => void (steps(b)[2].action.kind = ''), 'action_kind_empty', 'workflows.intake.steps.2.action.kind'],
    ['output_schema.required naming no property', (b: Bundle) => void steps(b)[0].output_schema.required.push('ghost'), 'output_schema_required_undeclared', 'workflows.intake.steps.0.output_schema.required'],
  ])('warns of %s, and the bundle stays valid', (_, mutate, rule, path) => {
    const b = lintFree();
    expect(rules(b)).toEqual([]);
    mutate(b);
    expect(validate(b).ok).toBe(true);
    expect(rules(b)[0]).toEqual([rule, path]); // a required field the mock lacks is also a mock_output_invalid
  });

  it('suggests the declared tool or prompt a typo meant', () => {
    const b = lintFree();
    steps(b)[3].tool = 'ledger.post_entri';
    steps(b)[0].prompt = 'extrct';
    expect(validate(b).errors.map((e) => [e.rule, e.hint])).toEqual([
      ['prompt_unknown', "did you mean 'extract'?"],
      ['tool_undeclared', "did you mean 'ledger.post_entry'?"],
    ]);
  });
});
