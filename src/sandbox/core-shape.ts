/**
 * Package test results in the core's answer of `POST /packages:test` (compat-core-packages §6.3) and back:
 * a test `{file, name, subject, object, process, status, durationMs, failures [{step, message, expected,
 * actual}]}`, coverage of a process `{process, version, elements, transitions, decisionRows, handlers}` (each
 * `{covered, total, missing}`), of a rule `{rule, tests, branches, outcomes}`, of a task type `{taskType,
 * version, tests, outcomes, preconditions, completion, acceptance}`. (A test's `durationMs` is not measured.) The local core answers in this shape with
 * this project's fields beside the core's (a failure's `code` and place, the test's own coverage), so that
 * `test --server local` reports exactly what the in-process run reports; from a real core, what it lacks is
 * filled in.
 */
import type { CoverageCount } from './coverage.js';
import type { ProcessCoverage, RuleCoverageReport, TaskTypeCoverageReport } from './index.js';
import type { TestFailure, TestResult } from './result.js';
import { isRecord } from '../json/guards.js';

/** `{covered, total, missing}`. */
export interface CoreCount {
  covered: number;
  total: number;
  missing: string[];
}

export type CoreTest = Omit<TestResult, 'package'> & { object: string; process: string | null };

export interface CoreProcessCoverage {
  process: string;
  version: number | null;
  elements: CoreCount;
  transitions: CoreCount;
  decisionRows: CoreCount;
  handlers: CoreCount;
}

export function toCoreTest({ package: _pkg, ...test }: TestResult): CoreTest {
  return { ...test, object: test.target, process: test.subject === 'process' ? test.target : null };
}

export function toCoreCount({ covered, total, missed }: CoverageCount): CoreCount {
  return { covered, total, missing: missed };
}

export function toCoreProcessCoverage(coverage: ProcessCoverage): CoreProcessCoverage {
  const { transitions, decisionRows, handlers } = coverage;
  return {
    process: coverage.process, version: coverage.version ?? null,
    elements: toCoreCount(coverage), transitions: toCoreCount(transitions), decisionRows: toCoreCount(decisionRows), handlers: toCoreCount(handlers),
  };
}

export function toCoreRuleCoverage({ package: _pkg, rule, tests, branches, outcomes }: RuleCoverageReport) {
  return { rule, tests, branches: toCoreCount(branches), outcomes: toCoreCount(outcomes) };
}

export function toCoreTaskTypeCoverage({ package: _pkg, taskType, tests, outcomes, preconditions, completion, acceptance }: TaskTypeCoverageReport) {
  return {
    taskType, version: null, tests,
    outcomes: toCoreCount(outcomes), preconditions: toCoreCount(preconditions), completion: toCoreCount(completion), acceptance: toCoreCount(acceptance),
  };
}

// ---------------------------------------------------------------- back, from an answer

function count(value: unknown): CoverageCount {
  const c = isRecord(value) ? value : {};
  const covered = typeof c.covered === 'number' ? c.covered : 0;
  const total = typeof c.total === 'number' ? c.total : 0;
  const missed = Array.isArray(c.missing) ? c.missing.map(String) : [];
  return { covered, total, percent: total === 0 ? 100 : Math.round((covered / total) * 1000) / 10, missed };
}

/** A test of an answer as this project reports it: the core's `object` is the target, a failure without a code is `failed`. */
export function fromCoreTest(value: Record<string, unknown>, pkg: string, file: string): TestResult {
  const failures = Array.isArray(value.failures) ? value.failures.filter(isRecord) : [];
  const { object: _object, process: _process, durationMs: _duration, ...ours } = value;
  return {
    ...(ours as unknown as TestResult),
    file,
    package: pkg,
    target: typeof value.target === 'string' ? value.target : String(value.object ?? ''),
    steps: typeof value.steps === 'number' ? value.steps : 0,
    failures: failures.map((failure) => ({ code: 'failed', path: '', ...failure, message: String(failure.message ?? '') }) as TestFailure),
  };
}

export function fromCoreProcessCoverage(value: Record<string, unknown>, pkg: string): ProcessCoverage {
  return {
    package: pkg, process: String(value.process),
    ...(typeof value.version === 'number' ? { version: value.version } : {}),
    ...count(value.elements),
    transitions: count(value.transitions), decisionRows: count(value.decisionRows), handlers: count(value.handlers),
  };
}

export function fromCoreRuleCoverage(value: Record<string, unknown>, pkg: string): RuleCoverageReport {
  return { package: pkg, rule: String(value.rule), tests: Number(value.tests ?? 0), outcomes: count(value.outcomes), branches: count(value.branches) };
}

export function fromCoreTaskTypeCoverage(value: Record<string, unknown>, pkg: string): TaskTypeCoverageReport {
  return {
    package: pkg, taskType: String(value.taskType), tests: Number(value.tests ?? 0),
    outcomes: count(value.outcomes), preconditions: count(value.preconditions), completion: count(value.completion), acceptance: count(value.acceptance),
  };
}
