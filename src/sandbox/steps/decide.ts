/**
 * `decide`: a decision table of the process, its inputs from the step's `input` or the table's own expressions
 * (an input that cannot be evaluated is null); the matched rules count as covered (`<table>#<rule>`).
 */
import { decide as decideTable, tableInputs } from '../decision.js';
import { ProcessError } from '../instance.js';
import { copy } from '../values.js';
import type { Handler } from './handler.js';

export const decide: Handler<'decide'> = async (step, { instance, ctx }) => {
  const body = step.body;
  const table = instance.model.decisions.find((t) => t.id === body.table)?.node;
  if (table === undefined) throw new ProcessError({ type: 'unknown_decision_table', detail: `no decision table '${String(body.table)}'` });
  const given = body.input ?? {};
  const inputs: Record<string, unknown> = {};
  for (const input of tableInputs(table)) {
    const source = typeof given[input.id] === 'string' ? given[input.id] : input.expr;
    inputs[input.id] = typeof source === 'string' ? instance.evaluateOrNull(source, ctx) : null;
  }
  const outcome = decideTable(table, inputs);
  if ('error' in outcome) throw new ProcessError(outcome.error);
  for (const rule of outcome.matched) instance.covered.add(`${String(table.id)}#${rule + 1}`);
  return { result: copy(outcome.result) };
};
