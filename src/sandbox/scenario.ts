/**
 * Runs one test file: builds its subject (process, rule or task type) over the catalog its package sees and
 * plays the steps in order. An `expect` that does not hold is recorded and the scenario goes on; a step that
 * cannot be done stops it. Each failure points at its place in the file.
 */
import { createEnvironment, evaluate, type CelEnvironment } from '../cel/index.js';
import type { SourceDocument } from '../json/document.js';
import type { Catalog } from './catalog.js';
import { MockBook } from './mocks.js';
import { processRun } from './process-test.js';
import { ScenarioFailure, type TestFailure, type TestResult, type TestSubject } from './result.js';
import { ruleRun } from './rule-test.js';
import { SchemaChecker } from './schemas.js';
import type { SubjectContext, SubjectRun } from './subject.js';
import { taskTypeRun } from './task-type-test.js';
import { isRecord } from '../json/guards.js';

const OPEN_OBJECT = { type: 'object', additionalProperties: true };
let mockEnvironment: CelEnvironment | undefined;

/** `when` of a mock answer: CEL over the call input, bound as `input` (and `query` for recall). */
function mockWhen(source: string, input: unknown): boolean {
  mockEnvironment ??= createEnvironment({ kind: 'process', extraVariables: { input: OPEN_OBJECT, query: OPEN_OBJECT } });
  try {
    return evaluate(mockEnvironment, source, { input, query: input }) === true;
  } catch {
    return false;
  }
}

const SUBJECTS: Record<TestSubject, (ctx: SubjectContext) => SubjectRun> = { process: processRun, rule: ruleRun, taskType: taskTypeRun };

export async function runScenario(document: SourceDocument, catalog: Catalog, pkg: string | undefined, schemas = new SchemaChecker()): Promise<TestResult> {
  const test = isRecord(document.value) ? document.value : {};
  const subject: TestSubject = test.subject === 'rule' || test.subject === 'taskType' ? test.subject : 'process';
  const steps = Array.isArray(test.steps) ? test.steps : [];
  const result: TestResult = {
    name: typeof test.name === 'string' ? test.name : document.file,
    file: document.file,
    ...(pkg !== undefined ? { package: pkg } : {}),
    subject,
    target: String(test[subject] ?? ''),
    status: 'passed',
    steps: 0,
    failures: [],
  };
  const given = isRecord(test.given) ? test.given : {};
  let run: SubjectRun;
  try {
    run = SUBJECTS[subject]({
      test, catalog, schemas,
      mocks: new MockBook(test.mocks, mockWhen),
      variables: catalog.variables(isRecord(given.variables) ? given.variables : {}),
    });
  } catch (error) {
    return stopped(result, document, error, '/given');
  }
  for (let i = 0; i < steps.length; i++) {
    const step = isRecord(steps[i]) ? (steps[i] as Record<string, unknown>) : {};
    try {
      for (const failure of run.step(step, i) ?? []) result.failures.push(failureOf(document, failure, `/steps/${i}`, i));
    } catch (error) {
      if (!(error instanceof ScenarioFailure) || error.stops) return stopped(result, document, error, `/steps/${i}`, i);
      result.failures.push(failureOf(document, error, `/steps/${i}`, i));
    }
    result.steps = i + 1;
  }
  const coverage = run.coverage();
  result.coverage = coverage;
  const minimum = isRecord(test.coverage) && typeof test.coverage.minimum === 'number' ? test.coverage.minimum : undefined;
  if (minimum !== undefined && 'percent' in coverage && coverage.percent < minimum) {
    const failure = new ScenarioFailure('coverage_below_minimum', `coverage of elements ${coverage.percent}% is below the minimum ${minimum}%; never reached: ${coverage.missed.join(', ')}`, {
      expected: minimum, actual: coverage.percent,
    });
    result.failures.push(failureOf(document, failure, '/coverage/minimum'));
  }
  if (result.failures.length > 0) result.status = 'failed';
  return result;
}

/** The scenario stops at a step that cannot be done: failed — or, for a fault of the engine itself, an error. */
function stopped(result: TestResult, document: SourceDocument, error: unknown, base: string, index?: number): TestResult {
  if (error instanceof ScenarioFailure) return { ...result, status: 'failed', failures: [...result.failures, failureOf(document, error, base, index)] };
  const failure: TestFailure = {
    code: 'internal_error',
    message: `the test engine failed — please report this with the test file: ${(error as Error).stack ?? String(error)}`,
    path: base,
    ...document.locate(base),
    ...(index !== undefined ? { step: index + 1 } : {}),
  };
  return { ...result, status: 'error', failures: [...result.failures, failure] };
}

function failureOf(document: SourceDocument, error: ScenarioFailure, base: string, index?: number): TestFailure {
  const detail = error.details.path;
  const pointer = detail === undefined ? base : detail.startsWith('/') ? detail : `${base}/expect/${detail.split('.')[0]}`;
  return {
    code: error.code,
    message: error.message,
    path: pointer,
    ...document.locate(pointer),
    ...(index !== undefined ? { step: index + 1 } : {}),
    ...('expected' in error.details ? { expected: error.details.expected } : {}),
    ...('actual' in error.details ? { actual: error.details.actual } : {}),
  };
}
