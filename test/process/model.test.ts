/**
 * The typed process model: what it finds where, in which order, and that it never throws on a spec the schema
 * would refuse.
 */
import { describe, expect, it } from 'vitest';
import { dottedPath } from '../../src/json/pointer.js';
import { atomsIn, fieldTestOf, guardOf, processModel } from '../../src/process/index.js';

const spec = {
  data: { properties: { id: 'not an element' } },
  decisions: [{ id: 't', inputs: [{ id: 'in', expr: 'data.x' }], outputs: [{ id: 'out' }] }],
  stages: [
    {
      id: 's',
      entry: 'true',
      milestones: [{ id: 'm', when: 'data.done' }],
      steps: [
        { id: 'a', human: { taskType: 'review', customFields: { id: 'data.x' } } },
        { id: 'f', fork: { branches: [{ id: 'b1', do: [{ id: 'c', set: { x: '1' } }] }] } },
        { id: 'tr', try: { do: [{ id: 'r', raise: { type: 'oops' } }], catch: [{ as: 'e', do: [{ id: 'h', complete: { outcome: 'failed' } }] }] } },
      ],
      discretionary: [{ id: 'extra', do: [{ id: 'inside', set: { y: '2' } }] }],
      timers: [{ id: 'st', at: 'P1D', do: [{ id: 'late', set: { late: 'true' } }] }],
    },
    { id: 'two', steps: [{ id: 'w', wait: 'PT1H' }, 'not a step', { id: 'both', set: {}, raise: { type: 'x' } }] },
  ],
  timers: [{ id: 'tm', at: 'P2D', do: [{ id: 'd', set: { id: 'data.y' } }] }],
  onEvent: [{ on: { event: 'x' }, do: [{ id: 'oe', set: {} }] }],
  correlate: [{ on: { event: 'y' }, key: 'event.payload.k', do: [{ id: 'co', set: {} }] }],
  migrations: [{ map: { id: 'x' } }],
};

describe('processModel', () => {
  const model = processModel(spec);

  it('lists stages, steps, branches, timers and tables as elements, not the ids inside data, maps, inputs or outputs', () => {
    expect(model.elements.map((element) => `${element.id}${element.table ? ' (table)' : ''}`)).toEqual([
      't (table)', 's', 'm', 'a', 'f', 'b1', 'c', 'tr', 'r', 'h', 'extra', 'inside', 'st', 'late', 'two', 'w', 'both', 'tm', 'd', 'oe', 'co',
    ]);
  });

  it('types every step of exactly one kind, depth first, stage by stage', () => {
    expect(model.steps.map((step) => `${step.id}:${step.kind}${step.stage ? `@${step.stage}` : ''}`)).toEqual([
      'a:human@s', 'f:fork@s', 'c:set@s', 'tr:try@s', 'r:raise@s', 'h:complete@s', 'extra:do@s', 'inside:set@s', 'late:set@s',
      'w:wait@two', 'd:set', 'oe:set', 'co:set',
    ]);
  });

  it('lists blocks outer first, without discretionary work, with the indexes of the file', () => {
    expect(model.blocks.map((block) => `${block.role} ${block.pointer}`)).toEqual([
      'stage /spec/stages/0/steps',
      'branch /spec/stages/0/steps/1/fork/branches/0/do',
      'try /spec/stages/0/steps/2/try/do',
      'catch /spec/stages/0/steps/2/try/catch/0/do',
      'stage /spec/stages/1/steps',
      'timer /spec/stages/0/timers/0/do',
      'timer /spec/timers/0/do',
      'onEvent /spec/onEvent/0/do',
      'correlate /spec/correlate/0/do',
    ]);
    const second = model.stages[1]!.steps;
    expect(second.items).toHaveLength(3);
    expect(second.steps.map((step) => [step.id, step.index])).toEqual([['w', 0]]);
  });

  it('keeps stages, milestones, timers and handlers with their pointers', () => {
    const [first] = model.stages;
    expect(first).toMatchObject({ id: 's', pointer: '/spec/stages/0', entry: 'true', repeatable: false, milestones: [{ id: 'm', when: 'data.done', pointer: '/spec/stages/0/milestones/0' }] });
    expect(first!.timers.map((timer) => [timer.id, timer.stage, timer.do.pointer])).toEqual([['st', 's', '/spec/stages/0/timers/0/do']]);
    expect(model.timers.map((timer) => [timer.id, timer.stage])).toEqual([['tm', undefined]]);
    expect(model.correlate[0]).toMatchObject({ key: 'event.payload.k', on: { event: 'y' } });
    expect(model.step('h')?.block.holder).toEqual({ as: 'e', do: [{ id: 'h', complete: { outcome: 'failed' } }] });
    expect(model.stepAt('/spec/stages/0/steps/0')?.kind).toBe('human');
  });

  it('is built once per spec object', () => expect(processModel(spec)).toBe(model));

  it('never throws on a spec the schema would refuse', () => {
    for (const odd of [{}, { stages: 'nope' }, { stages: [7, { steps: { a: 1 } }, { id: 3, steps: [null, { human: 'x' }] }] }, { timers: [{ do: 'x' }], decisions: 'x' }]) {
      expect(() => processModel(odd)).not.toThrow();
    }
  });

  it('names a place as a message does', () => expect(dottedPath('/spec/stages/0/steps/12')).toBe('spec.stages[0].steps[12]'));
});

describe('guards', () => {
  it('reads stage and milestone atoms joined by &&, || and !', () => {
    const guard = guardOf("stage.review.completed && !milestone['paid'] || stage[\"a-b\"].active || data.x > 3");
    expect(atomsIn(guard).map((atom) => ('text' in atom ? atom.text : atom.value))).toEqual(['stage.review.completed', "milestone['paid']", 'stage["a-b"].active']);
    expect(guard.op).toBe('or');
  });

  it('flattens chains and sees constants; a ternary or an unparsable text is opaque', () => {
    expect(guardOf('(a && b) && false')).toEqual({ op: 'and', items: [{ op: 'opaque' }, { op: 'opaque' }, { op: 'const', value: false }] });
    expect(guardOf('stage.a.completed ? true : false')).toEqual({ op: 'opaque' });
    expect(guardOf('stage.a.completed &&')).toEqual({ op: 'opaque' });
  });

  it('reads installation variables as values', () => {
    expect(guardOf('stage.a.completed && data.amount > ${LIMIT}').op).toBe('and');
  });

  it('tells which values of one data field a when accepts', () => {
    const holds = (when: string, values: (string | boolean)[]) => {
      const test = fieldTestOf(when);
      return test === undefined ? undefined : [test.field, values.map((value) => test.holds(value))];
    };
    expect(holds("data.kind == 'a'", ['a', 'b'])).toEqual(['data.kind', [true, false]]);
    expect(holds("'a' != data.kind", ['a', 'b'])).toEqual(['data.kind', [false, true]]);
    expect(holds("data.kind in ['a', 'b'] || data.kind == 'c'", ['a', 'c', 'd'])).toEqual(['data.kind', [true, true, false]]);
    expect(holds('!data.flag', [true, false])).toEqual(['data.flag', [false, true]]);
    expect(holds("data.kind == 'a' || data.other == 'b'", [])).toBeUndefined();
    expect(holds("data['kind'] == 'a'", [])).toBeUndefined();
    expect(holds('data.n == 3', [])).toBeUndefined();
  });
});
