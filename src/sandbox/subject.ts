/**
 * What every subject of a package test (process, rule, task type) gets from the runner, and gives back: a
 * function that plays one scenario step, and the coverage it reached.
 */
import type { InstallVariable } from '../cel/index.js';
import type { Catalog } from './catalog.js';
import type { MockBook } from './mocks.js';
import type { ElementCoverage } from './result.js';
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
  /** Plays step `index` of the scenario; throws `ScenarioFailure` when it fails. */
  step(step: Record<string, unknown>, index: number): Promise<void>;
  coverage?(): ElementCoverage;
}
