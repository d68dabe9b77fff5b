/**
 * What every subject of a package test (process, rule, task type) gets from the runner, and gives back: a
 * function that plays one scenario step, and the coverage it reached.
 */
import type { InstallVariable } from '../cel/index.js';
import type { Catalog } from './catalog.js';
import type { MockBook } from './mocks.js';
import type { SubjectCoverage } from './coverage.js';
import type { ScenarioFailure } from './result.js';
import type { SchemaChecker } from './schemas.js';

export interface SubjectContext {
  /** The test document. */
  test: Record<string, unknown>;
  catalog: Catalog;
  mocks: MockBook;
  schemas: SchemaChecker;
  variables: Record<string, InstallVariable>;
}

export interface SubjectRun {
  /**
   * Plays step `index` of the scenario: gives the expectations that did not hold (the scenario goes on), throws
   * `ScenarioFailure` when the step cannot be done (the scenario stops; an `expectation_failed` thrown is one
   * expectation that did not hold).
   */
  step(step: Record<string, unknown>, index: number): ScenarioFailure[] | void;
  /** What the scenario covered of its subject. */
  coverage(): SubjectCoverage;
}
