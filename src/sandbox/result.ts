/**
 * What running a scenario gives: one result per test file with its failures — every `expect` that failed
 * (the scenario goes on after one), and the step that could not be done (which stops it) — each with where it
 * is written, what was expected and what happened; and, for processes, the coverage of the process.
 */
import type { Span } from '../json/document.js';
import type { SubjectCoverage } from './coverage.js';

export type { CoverageCount, ElementCoverage, RuleCoverage, SubjectCoverage, TaskTypeCoverage } from './coverage.js';

export type TestSubject = 'process' | 'rule' | 'taskType';

export interface TestFailure extends Partial<Span> {
  /** Stable snake_case code: `expectation_failed`, `step_not_waiting`, `step_refused`, `output_invalid`, … */
  code: string;
  message: string;
  /** JSON Pointer into the test file of the scenario step (or given / mocks part) that failed. */
  path: string;
  /** 1-based index of the scenario step, when a step failed. */
  step?: number;
  expected?: unknown;
  actual?: unknown;
}

export interface TestResult {
  name: string;
  file: string;
  package?: string;
  subject: TestSubject;
  /** Key of the process, rule or task type under test. */
  target: string;
  status: 'passed' | 'failed' | 'error';
  /** Scenario steps run (all of them unless a step could not be done). */
  steps: number;
  /** What failed, in the order of the steps; empty when the test passed. */
  failures: TestFailure[];
  /** What the test covered of its process, rule or task type (absent when it did not run). */
  coverage?: SubjectCoverage;
}

/**
 * A scenario step that failed. `expectation_failed` is an `expect` that did not hold: recorded, and the
 * scenario goes on. Any other code is a step that cannot be done, and stops the scenario.
 */
export class ScenarioFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: { expected?: unknown; actual?: unknown; path?: string } = {},
  ) {
    super(message);
    this.name = 'ScenarioFailure';
  }

  get stops(): boolean {
    return this.code !== 'expectation_failed';
  }
}
