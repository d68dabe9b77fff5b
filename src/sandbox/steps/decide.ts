/**
 * `decide`: a decision table of the process, its inputs from the step's `input` or the table's own expressions;
 * the rows that matched count as covered (`<table>/<row>`). `decision_no_match` and `decision_ambiguous` are
 * errors a `try` can catch.
 */
import { cellsOf, decide as decideTable, inferredType, tableInputs, type InputType } from '../decision.js';
import { ProcessError } from '../instance.js';
import type { Handler } from './handler.js';

export const decide: Handler<'decide'> = (step, { instance, thread, ctx }) => {
  const body = step.body;
  const at = instance.model.decisions.find((t) => t.id === body.table);
  if (at === undefined) throw new ProcessError({ type: 'unknown_decision_table', status: 422, detail: `no decision table '${String(body.table)}'` });
  const table = at.node;
  const given = body.input ?? {};
  const values: Record<string, unknown> = {};
  const types: Record<string, InputType> = {};
  tableInputs(table).forEach((input, index) => {
    const override = typeof given[input.id] === 'string' ? (given[input.id] as string) : undefined;
    const source = override ?? input.expr;
    const pointer = override !== undefined ? `${step.pointer}/decide/input/${input.id}` : `${at.pointer}/inputs/${index}/expr`;
    values[input.id] = source === undefined ? null : instance.evaluate(source, { thread, frame: ctx }, pointer);
    types[input.id] = input.type ?? inferredType(source === undefined ? undefined : instance.typeOf(source), cellsOf(table, input.id));
  });
  const outcome = decideTable(table, values, types);
  if ('error' in outcome) throw new ProcessError(outcome.error);
  for (const row of outcome.matched) instance.coverage.row(`${String(table.id)}/${row}`);
  return { kind: 'done', result: outcome.result };
};
