/**
 * `approve`: one approval per link of the approvers chain, asked in parallel or in turn, decided by a quorum
 * — early or once nobody is pending — or by the deadline (`onDue: approve | reject`). Separation of duties is
 * the CEL list evaluated when the step runs. A rejection is a normal completion: the result is
 * `{outcome, approvedBy, rejectedBy}`.
 */
import { approvalResult, quorumNeed, type ApprovalRequest } from '../approvals.js';
import { startDeadline } from '../deadlines.js';
import { Activity } from '../instance.js';
import { chainCandidates, isRefusal, refuse } from './activity.js';
import type { Handler } from './handler.js';

export const approve: Handler<'approve'> = (step, run) => {
  const { instance, thread, ctx, runner } = run;
  const body = step.body;
  const bindings = { thread, frame: ctx };
  const pointer = `${step.pointer}/approve`;
  const links = chainCandidates(instance, body.approvers, bindings, `${pointer}/approvers`).filter((link): link is string => link !== null);
  const excludedRaw = body.separationOfDuties === undefined ? [] : listOf(instance.evaluate(body.separationOfDuties, bindings, `${pointer}/separationOfDuties`));
  const request: ApprovalRequest = {
    step: step.id, links,
    excluded: excludedRaw.filter((entry): entry is string => typeof entry === 'string' && entry !== ''),
    mode: body.mode === 'sequential' ? 'sequential' : 'parallel',
    earlyDecision: body.earlyDecision !== false,
    need: quorumNeed(body.quorum ?? 'all', links.length),
    votes: links.map(() => undefined),
  };
  const activity = new Activity('approve', step, thread, instance);
  activity.approval = request;
  const refusal = instance.world.requestApprovals(request, excludedRaw);
  if (isRefusal(refusal)) {
    refuse(run, activity, refusal);
    return { kind: 'wait' };
  }
  const decide = (outcome: 'approved' | 'rejected') => {
    if (request.decided !== undefined) return;
    request.decided = outcome;
    instance.coverage.transition(`${step.id}:${outcome}`);
    runner.resume(activity, 'completed', () => runner.complete(thread, step, { result: approvalResult(request, outcome) }, ctx));
  };
  activity.onAnswer = (answer) => {
    if (answer.kind === 'approval') decide(answer.outcome);
  };
  if (body.due !== undefined) {
    startDeadline(instance, {
      key: step.id, due: body.due, bindings, owner: activity.timers, pausable: thread.scope.kind === 'stage', escalations: body.escalations ?? [],
      onDue: body.onDue, decide, raise: (problem) => runner.raise(thread, problem),
    });
  }
  return { kind: 'wait' };
};

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}
