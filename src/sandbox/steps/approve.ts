/**
 * `approve`: an approval task for the approvers of the step's chain, decided by their votes — in parallel or in
 * turn, by a quorum, early or once everyone voted, without the principals separation of duties excludes — or by
 * its deadline (`onDue`). The result is the outcome and who voted which way.
 */
import { closeDeadline, startDeadline } from '../deadlines.js';
import type { Approval, ProcessInstance } from '../instance.js';
import type { Handler } from './handler.js';
import { isRecord } from '../../json/guards.js';

export const approve: Handler<'approve'> = async (step, { instance, scope, ctx }) => {
  const body = step.body;
  const assignment = instance.assignment(body.approvers, ctx);
  const candidates = assignment.candidates.length > 0 ? assignment.candidates : assignment.assignee ? [assignment.assignee] : [];
  const task = instance.createTask(step.id, 'approval', typeof body.taskType === 'string' ? body.taskType : 'approval', assignment, {});
  const approval: Approval = {
    step: step.id, task, candidates, ctx,
    mode: body.mode === 'sequential' ? 'sequential' : 'parallel',
    needed: quorumNeeded(body.quorum, candidates.length),
    earlyDecision: body.earlyDecision !== false,
    votes: [],
    ...(typeof body.separationOfDuties === 'string' ? { separationOfDuties: body.separationOfDuties } : {}),
  };
  instance.approvals.push(approval);
  const work = scope.child();
  if (body.due !== undefined) {
    const due = startDeadline(instance, step.id, body.due, work, { ...ctx, task }, { escalations: body.escalations ?? [], task, onDue: body.onDue, approval });
    task.due = instance.clock.iso(due.due);
  }
  try {
    const outcome = await work.wait<'approved' | 'rejected'>((resolve, fail) => {
      approval.decide = resolve;
      task.fail = fail;
      return () => {
        approval.decide = undefined;
      };
    });
    task.state = 'completed';
    task.status = outcome;
    instance.record(`process.approval_${outcome}`, step.id);
    const approvedBy = approval.votes.filter((v) => v.decision === 'approve').map((v) => v.by);
    const rejectedBy = approval.votes.filter((v) => v.decision === 'reject').map((v) => v.by);
    return { result: { outcome, approvedBy, rejectedBy }, task };
  } finally {
    closeDeadline(instance, step.id);
    work.close();
    work.cancel();
    if (task.state === 'open') task.state = 'cancelled';
  }
};

/** Why the core would refuse a vote of `by`, if it would. */
export function voteRefusal(instance: ProcessInstance, approval: Approval, by: string): string | undefined {
  if (approval.candidates.length > 0 && !approval.candidates.includes(by)) return 'not_eligible';
  if (approval.votes.some((v) => v.by === by)) return 'already_decided';
  if (excluded(instance, approval).includes(by)) return 'separation_of_duties_violation';
  if (approval.mode === 'sequential') {
    const next = approval.candidates.find((c) => !approval.votes.some((v) => v.by === c) && !excluded(instance, approval).includes(c));
    if (next !== undefined && next !== by) return 'not_your_turn';
  }
  return undefined;
}

/** Decides the approval once its votes allow: approved at the quorum, rejected when it can no longer be reached. */
export function tally(instance: ProcessInstance, approval: Approval): void {
  const approvals = approval.votes.filter((v) => v.decision === 'approve').length;
  const rejections = approval.votes.length - approvals;
  const voters = Math.max(approval.candidates.length - excluded(instance, approval).filter((p) => approval.candidates.includes(p)).length, approval.needed);
  const everyoneVoted = approval.votes.length >= voters;
  if (!approval.earlyDecision && !everyoneVoted) return;
  if (approvals >= approval.needed) approval.decide?.('approved');
  else if (voters - rejections < approval.needed || everyoneVoted) approval.decide?.('rejected');
}

/** Principals who must not vote, as the core computes them at decision time. */
function excluded(instance: ProcessInstance, approval: Approval): string[] {
  if (approval.separationOfDuties === undefined) return [];
  const value = instance.evaluate(approval.separationOfDuties, approval.ctx);
  return Array.isArray(value) ? value.map(String) : [];
}

function quorumNeeded(quorum: unknown, candidates: number): number {
  if (quorum === 'all') return Math.max(candidates, 1);
  if (isRecord(quorum) && typeof quorum.atLeast === 'number') return quorum.atLeast;
  if (isRecord(quorum) && typeof quorum.percent === 'number') return Math.max(1, Math.ceil((candidates * quorum.percent) / 100));
  return 1;
}
