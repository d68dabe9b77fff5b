/**
 * The CEL profile `cp/1` of processes and views (the core's, compat-core-cel.md) — the one door to it. Nothing outside `src/cel/` imports the
 * CEL library.
 *
 *   const env = createEnvironment(processProfile(spec, settingsSchema));      // once per distinct profile
 *   for (const e of processExpressions(spec)) {
 *     const result = checkExpression(env /* or an env of expressionProfile(base, e) *\/, e.source, { expected: e.expected, variables });
 *     // result.diagnostics: {code, message, offset, length, hint?} — offsets into e.source, map them with locateInScalar(e.pointer, offset)
 *   }
 *   evaluate(env, 'data.amount > 100.0', { data }, { calendars })             // the package test engine
 */
export { createEnvironment, type CelEnvironment, type Profile } from './environment.js';
export { celDefinitions, type CelDefinitions, type CelFunction, type CelVariable } from './definitions.js';
export {
  checkExpression, CEL_CODES, LIMITS, generalType as celGeneralType,
  type CelCode, type CelDiagnostic, type CelTypeName, type CheckOptions, type Expected, type CheckResult, type PathRead,
} from './check.js';
export { evaluate, CelEvaluationError, type EvaluateOptions } from './evaluate.js';
export { CalendarNamespace, KeyedCalendarNamespace, type CalendarLookup, type WorkCalendar } from './calendar.js';
export { compileRegex } from './regex.js';
export { substituteVariables, type InstallVariable } from './install-variables.js';
export { parseDuration, formatDuration } from './duration.js';
export type { JsonSchema } from './types.js';
export {
  VIEW_FIELDS, PROCESS_RECORD_SCHEMA, viewExpressions, viewProfile,
  type ViewExpression, type ViewField, type ViewProfileOptions,
} from './view-fields.js';
export { workCalendar, type CalendarSpec } from './work-calendar.js';
