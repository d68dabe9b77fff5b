/**
 * Approvals as the core's sandbox keeps them: one approval per link of the approvers chain (a role link is one
 * approval any holder of the role may decide), asked all at once (`parallel`) or one after the other
 * (`sequential`), decided by a quorum over the number of links — as soon as the verdict cannot change
 * (`earlyDecision`, the default) or once nobody is pending. Separation of duties excludes principals; a vote by
 * one of them is refused, and so is a vote by someone who holds no asked link.
 */

export interface Vote {
  by: string;
  decision: 'approve' | 'reject';
}

export interface ApprovalRequest {
  step: string;
  /** The chain links: a principal, `role:<slug>` or `agent:<key>`. */
  links: string[];
  /** Principals separation of duties excludes. */
  excluded: string[];
  mode: 'parallel' | 'sequential';
  earlyDecision: boolean;
  /** Approvals the quorum needs. */
  need: number;
  /** The vote on each link, by index. */
  votes: (Vote | undefined)[];
  decided?: 'approved' | 'rejected';
}

/** The approvals a quorum needs of `total` links: `all`, `any`, `{atLeast}`, `{percent}`. */
export function quorumNeed(quorum: unknown, total: number): number {
  if (quorum === 'any') return 1;
  if (typeof quorum === 'object' && quorum !== null && typeof (quorum as { atLeast?: unknown }).atLeast === 'number') return (quorum as { atLeast: number }).atLeast;
  if (typeof quorum === 'object' && quorum !== null && typeof (quorum as { percent?: unknown }).percent === 'number') {
    return Math.max(1, Math.ceil(((quorum as { percent: number }).percent * total) / 100));
  }
  return total;
}

/** Why a request is refused before anyone is asked (`invalid_approval`), if it is. */
export function requestRefusal(request: ApprovalRequest, excludedRaw: readonly unknown[]): string | undefined {
  if (request.links.length === 0) return 'invalid_approval: the approvers chain names nobody';
  if (excludedRaw.some((entry) => entry === null || entry === '')) return 'invalid_approval: separation of duties lists an empty principal';
  const excludedApprover = request.links.find((link) => request.excluded.includes(link));
  if (excludedApprover !== undefined) return `invalid_approval: separation of duties excludes the approver ${excludedApprover}`;
  return undefined;
}

/** The links asked now: all of them in parallel, in turn the first without a vote. */
function askedLinks(request: ApprovalRequest): number[] {
  const pending = request.links.map((_, i) => i).filter((i) => request.votes[i] === undefined);
  return request.mode === 'sequential' ? pending.slice(0, 1) : pending;
}

/**
 * The link `by` decides with a vote, or the core's refusal: `separation_of_duties_violation` for an excluded
 * principal, `not_eligible` for someone who holds no link asked now. `holds(role, by)` says who holds a role.
 */
export function linkFor(request: ApprovalRequest, by: string, holds: (role: string, by: string) => boolean): number | { refused: string } {
  if (request.excluded.includes(by)) return { refused: 'separation_of_duties_violation' };
  const link = askedLinks(request).find((i) => {
    const name = request.links[i]!;
    return name.startsWith('role:') ? holds(name.slice(5), by) : name === by;
  });
  return link === undefined ? { refused: 'not_eligible' } : link;
}

/** The verdict the votes give, if they give one yet. */
export function verdict(request: ApprovalRequest): 'approved' | 'rejected' | undefined {
  const total = request.links.length;
  if (total <= 0) return 'rejected';
  const approvals = request.votes.filter((vote) => vote?.decision === 'approve').length;
  const pending = request.votes.filter((vote) => vote === undefined).length + (total - request.votes.length);
  if (!request.earlyDecision && pending > 0) return undefined;
  if (approvals >= request.need) return 'approved';
  if (approvals + pending < request.need) return 'rejected';
  return pending === 0 ? 'rejected' : undefined;
}

/** `step.result` of a decided approval: the outcome and who voted which way, sorted. */
export function approvalResult(request: ApprovalRequest, outcome: 'approved' | 'rejected'): Record<string, unknown> {
  const by = (decision: Vote['decision']) => request.votes.filter((vote): vote is Vote => vote?.decision === decision).map((vote) => vote.by).sort();
  return { outcome, approvedBy: by('approve'), rejectedBy: by('reject') };
}
