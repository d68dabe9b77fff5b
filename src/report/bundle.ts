/**
 * Text output of the bundle and keys commands. Validation errors print in the compiler style of
 * `check` (through `renderFinding`), with the control plane's dotted path in front of the message.
 */
import { readFileSync } from 'node:fs';
import type { Finding } from '../model/finding.js';
import type { Paint } from './paint.js';
import { renderFinding } from './text.js';
import { kernosCanonicalJson } from '../json/canonical.js';
import type { JsonValue } from '../json/parse.js';
import { jsonText } from '../bundle/json-text.js';
import type { RunTrace, StepTrace } from '../bundle/run.js';
import type { BundleError, FilesValidation } from '../bundle/validate.js';

function asFinding(error: BundleError): Finding {
  const at = error.details.path === '' ? '(root)' : error.details.path;
  const aboutTheFile = error.code === 'invalid_json' || error.code === 'usage';
  return {
    code: error.rule, severity: error.severity, message: aboutTheFile ? error.message : `${at}: ${error.message}`, file: error.file ?? '-', path: error.pointer,
    line: error.line ?? 1, column: error.column ?? 1,
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    ...(error.endLine === undefined ? {} : { endLine: error.endLine, endColumn: error.endColumn }),
  };
}

function sourceOf(file: string | undefined, cache: Map<string, string | undefined>): string | undefined {
  if (file === undefined) return undefined;
  if (!cache.has(file)) {
    try {
      cache.set(file, readFileSync(file, 'utf8'));
    } catch {
      cache.set(file, undefined);
    }
  }
  return cache.get(file);
}

export function renderValidation(result: FilesValidation, paint: Paint, first: boolean): string {
  if (first) {
    // The control plane's own words: one line per invalid file.
    return result.bundles.map((b) => {
      const error = result.errors.find((e) => e.file === b.file);
      if (!error) return `${b.file}: ${okLine(b)}`;
      return error.code === 'bundle_invalid' ? `${b.file}: error: bundle is invalid at ${error.details.path}: ${error.message}` : `${b.file}: error: ${error.message}`;
    }).join('\n');
  }
  const sources = new Map<string, string | undefined>();
  const problems = [...result.errors, ...result.warnings]
    .sort((a, b) => (a.file ?? '').localeCompare(b.file ?? '') || (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0))
    .map((e) => renderFinding(asFinding(e), sourceOf(e.file, sources), paint));
  const lines = result.bundles.map((b) => (b.ok ? `${b.file}: ${okLine(b)}` : `${b.file}: ${paint.error('invalid')}`));
  const counts = `${result.errors.length} error${result.errors.length === 1 ? '' : 's'}, ${result.warnings.length} warning${result.warnings.length === 1 ? '' : 's'}`;
  return [...problems, ...(problems.length > 0 ? [''] : []), ...lines, counts].join('\n');
}

function okLine(b: FilesValidation['bundles'][number]): string {
  const department = b.department ? ` (${b.department})` : '';
  return `ok — ${b.name}@${b.version}${department}: ${b.workflows} workflow${b.workflows === 1 ? '' : 's'}, ${b.steps} step${b.steps === 1 ? '' : 's'}`;
}

/** Aligned `key  value` lines, as kernos prints an object. */
export function renderObject(object: Record<string, unknown>): string {
  const width = Math.max(0, ...Object.keys(object).map((k) => k.length));
  return Object.entries(object)
    .map(([k, v]) => `${k.padEnd(width)}  ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join('\n');
}

/**
 * A stored bundle (`bundle show`): aligned `key  value` lines; on a terminal, the bundle and its signature
 * pretty-printed below their key, elsewhere one compact line each for scripts. Numbers keep their lexemes.
 */
export function renderStoredBundle(stored: Record<string, unknown>, terminal: boolean): string {
  if (!terminal) return renderObject(Object.fromEntries(Object.entries(stored).map(([name, value]) => [name, typeof value === 'string' ? value : jsonText(value)])));
  const scalars = Object.entries(stored).filter(([, value]) => value === null || typeof value !== 'object');
  const nested = Object.entries(stored).filter(([, value]) => value !== null && typeof value === 'object');
  const top = renderObject(Object.fromEntries(scalars.map(([name, value]) => [name, typeof value === 'string' ? value : jsonText(value)])));
  return [top, ...nested.map(([name, value]) => `${name}\n${jsonText(value, 2).replace(/^/gm, '  ')}`)].join('\n');
}

/** An array of objects as a table with the given columns. */
export function renderTable(rows: readonly object[], columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell((r as Record<string, unknown>)[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line([...columns]), ...rows.map((r) => line(columns.map((c) => cell((r as Record<string, unknown>)[c]))))].join('\n');
}

const MARK: Record<string, string> = { completed: '✓', failed: '✗', parked: '‖' };

export function renderTrace(trace: RunTrace, paint: Paint): string {
  const out = [`run ${trace.run_id}  ${trace.bundle.name}@${trace.bundle.version}  workflow ${trace.workflow}`];
  for (const step of trace.steps) out.push(...stepLines(step, paint));
  if (trace.compensations.length > 0) {
    out.push('compensations (newest first):');
    for (const step of trace.compensations) out.push(...stepLines(step, paint));
  }
  const end = trace.status === 'completed' ? paint.added('completed') : trace.status === 'parked' ? paint.warning('parked') : paint.error('failed');
  out.push(`run ${end}${trace.error ? ` at step ${trace.error.step}: ${trace.error.code}: ${trace.error.message}` : ''}`);
  return out.join('\n');
}

function stepLines(step: StepTrace, paint: Paint): string[] {
  const mark = step.status === 'completed' ? paint.added(MARK.completed!) : step.status === 'failed' ? paint.error(MARK.failed!) : paint.warning(MARK.parked!);
  const what = step.kind === 'model' ? `model ${step.tiers?.join(' → ')} prompt ${step.prompt?.name}` : step.tool ? `${step.kind} ${step.tool}` : `action ${kindOf(step.action)}`;
  const lines = [`  ${mark} ${paint.bold(step.id)}  ${what}`];
  const show = (label: string, value: JsonValue | undefined) => {
    if (value !== undefined) lines.push(`      ${paint.dim(label)} ${typeof value === 'string' ? value : kernosCanonicalJson(value)}`);
  };
  show('args', step.args);
  show('idempotency key', step.idempotency_key);
  show('action', step.action);
  show('output', step.output);
  for (const note of step.notes) lines.push(`      ${paint.dim('note')} ${note}`);
  if (step.error) lines.push(`      ${paint.error(step.error.code)} ${step.error.message}`);
  return lines;
}

function kindOf(action: JsonValue | undefined): string {
  return action !== null && typeof action === 'object' && !Array.isArray(action) && 'kind' in action ? String(action.kind) : '';
}
