/**
 * What running a scenario gives: one result per test file, with the first failing step of the scenario — where
 * it is written, what was expected and what happened — and, for processes, the coverage of process elements.
 */
import type { Span } from '../json/document.js';

export type TestSubject = 'process' | 'rule' | 'taskType';

export interface TestFailure extends Partial<Span> {
  /** Stable snake_case code: `expectation_failed`, `mock_missing`, `step_refused`, `output_invalid`, … */
  code: string;
  message: string;
  /** JSON Pointer into the test file of the scenario step (or given/mocks part) that failed. */
  path: string;
  /** 1-based index of the scenario step, when a step failed. */
  step?: number;
  expected?: unknown;
  actual?: unknown;
}

export interface ElementCoverage {
  covered: number;
  total: number;
  /** Covered share of elements, 0–100, one decimal. */
  percent: number;
  /** Element ids never reached. */
  missed: string[];
}

export interface TestResult {
  name: string;
  file: string;
  package?: string;
  subject: TestSubject;
  /** Key of the process, rule or task type under test. */
  target: string;
  status: 'passed' | 'failed' | 'error';
  /** Scenario steps run (all of them when passed). */
  steps: number;
  failure?: TestFailure;
  coverage?: ElementCoverage;
}

/** A scenario that cannot go on: the engine or an expectation stops it with this. */
export class ScenarioFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details: { expected?: unknown; actual?: unknown; path?: string } = {},
  ) {
    super(message);
    this.name = 'ScenarioFailure';
  }
}
