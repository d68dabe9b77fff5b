/** plan and apply as a library: what the commands call, and what tests and other tools may call. */
export { plan, DEFAULT_REPLAY_LIMIT, type PlanOptions, type PlanResult } from './plan.js';
export { apply, type ApplyOptions, type ApplyResult, type AppliedChange } from './apply.js';
export { readPlanFile, PLAN_FORMAT, type PlanDocument, type Section, type Change, type Operation } from './document.js';
export { Refusal } from '../fs/refusal.js';
export { canonicalJson } from '../json/canonical.js';
export { digest } from '../json/digest.js';
