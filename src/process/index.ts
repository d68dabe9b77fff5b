/** The typed model of a Process, and what the analyses read of it. */
export {
  dataWrites, processModel, writtenPaths, STEP_KINDS, STEP_KINDS_WITH_DUE,
  type Block, type DataWrite, type BlockRole, type CelMap, type Handler, type Milestone, type ProcessElement, type ProcessModel, type Stage, type Step,
  type StepBodies, type StepKind, type StepOf, type Timer, type Trigger,
} from './model.js';
export { EVENT_TYPES, knownEventType } from './events.js';
export { atomsIn, fieldTestOf, guardOf, type FieldTest, type Guard } from './guards.js';
export {
  celTypeFits, dataSchemaProblem, jsonTypesOf, lookupDataField, processDataSchema, typingDataSchema, writeTarget, type DataFieldLookup, type DataSchemaProblem, type WriteTarget,
} from './data.js';
export {
  PROCESS_FIELDS, PROCESS_ERROR_SCHEMA, expressionProfile, processExpressions, processProfile, stepResultOf,
  type FieldTarget, type ProcessExpression, type ShapeName, type StepCatalog, type StepResult,
} from './expressions.js';
