/**
 * The review page of a plan (`plan --html`, `plan show --html`): one self-contained HTML file a reviewer opens
 * from CI before approving — the summary, each change with its field-level difference (before and after, as
 * the core planned it), what happens to live instances, console edits, the core's problems, warnings, and, when
 * the plan was refused, the refusal and why.
 */
import { lineDiff } from '../lock/line-diff.js';
import type { Change, CorePlanField, CoreSection, PlanDocument, Section } from '../plan/document.js';
import { escapeHtml, htmlPage, jsonBlock } from './page-html.js';
import { changeLine, consoleEdits, markOf, planSummary } from './plan.js';

export interface PlanPage {
  /** The plan; absent when it was refused before it was built. */
  document?: PlanDocument;
  warnings?: readonly string[];
  refusal?: { code: string; message: string; hint?: string | undefined; problems?: readonly string[] };
  /** The plan file, when there is one. */
  file?: string;
}

const MARK_CLASS: Record<string, string> = { '+': 'add', '~': 'change', '-': 'retire' };

export function renderPlanHtml(page: PlanPage): string {
  const document = page.document;
  const title = document ? `Plan of ${document.installation ?? document.install}` : 'Plan refused';
  const body = [`<h1>${escapeHtml(title)}</h1>`];
  if (document) body.push(header(document, page.file));
  if (page.refusal) {
    const refusal = page.refusal;
    body.push('<h2>Refused</h2>', `<div class="box refusal"><b class="bad">error ${escapeHtml(refusal.code)}</b>: <span class="message">${escapeHtml(refusal.message)}</span>`,
      ...(refusal.problems ?? []).map((problem) => `<div>${escapeHtml(problem)}</div>`),
      refusal.hint ? `<div class="dim">hint: ${escapeHtml(refusal.hint)}</div>` : '', '</div>');
  }
  if ((page.warnings ?? []).length > 0) body.push('<h2>Warnings</h2>', ...(page.warnings ?? []).map((warning) => `<div class="box warning">${escapeHtml(warning)}</div>`));
  if (document) {
    body.push(`<div class="summary">${planSummary(document).map(escapeHtml).join('<br>')}</div>`);
    for (const section of document.sections) body.push(...sectionHtml(section, document));
    body.push(...consoleEditsHtml(document));
  }
  return htmlPage(title, body.join('\n'));
}

function header(document: PlanDocument, file: string | undefined): string {
  const rows: [string, string][] = [
    ['server', document.server], ['control-plane', document.engines['control-plane'] ?? '?'], ['created', document.createdAt],
    ['installation file', document.install], ['planHash', document.planHash], ['lockHash', document.lockHash], ['variablesHash', document.variablesHash],
    ['console edits', document.overwriteConsole ? 'overwritten (overwriteConsole)' : 'kept'],
  ];
  if (file !== undefined) rows.unshift(['plan file', file]);
  return `<table class="meta">${rows.map(([name, value]) => `<tr><th>${escapeHtml(name)}</th><td><code>${escapeHtml(value)}</code></td></tr>`).join('')}</table>`;
}

function sectionHtml(section: Section, document: PlanDocument): string[] {
  switch (section.kind) {
    case 'catalog':
    case 'notification-rules':
      return section.changes.length === 0 ? [] : [`<h2>${section.kind}</h2>`, ...section.changes.map(changeHtml)];
    case 'retire':
      return section.items.length === 0 ? [] : ['<h2>retire</h2>', ...section.items.map(changeHtml)];
    case 'knowledge': {
      const enable = section.enable.map((item) => `<div class="box change"><span class="mark add">+</span> workspace <code>${escapeHtml(item.workspace)}</code>: packs ${escapeHtml(item.packs.join(', '))}${item.strict ? ' (strict)' : ''} <span class="dim">(now: ${escapeHtml(item.current.join(', ') || '—')})</span></div>`);
      return section.register.length + enable.length === 0 ? [] : ['<h2>knowledge</h2>', ...section.register.map(changeHtml), ...enable];
    }
    case 'core':
      return coreHtml(section, document);
  }
}

function changeHtml(change: Change): string {
  const line = changeLine(change);
  const held = change.expected === undefined ? '' : `<details><summary>what the core held when planned</summary>${jsonBlock(change.expected)}</details>`;
  return `<div class="box change"><span class="mark ${MARK_CLASS[line.mark]}">${line.mark}</span> ${escapeHtml(line.text)}${held}</div>`;
}

function coreHtml(section: CoreSection, document: PlanDocument): string[] {
  const out = [`<h2>core ${escapeHtml(section.package)}</h2>`];
  for (const change of section.plan.changes ?? []) {
    const deprecates = change.deprecates?.length ? ` (new version, deprecates ${change.deprecates.map((v) => `v${v}`).join(', ')})` : '';
    const mark = markOf(change.action) ?? (deprecates ? '~' : null);
    if (mark === null) continue;
    const renamed = change.renamedFrom ? ` (renamed from ${change.renamedFrom})` : '';
    out.push(`<div class="box change"><span class="mark ${MARK_CLASS[mark]}">${mark}</span> ${escapeHtml(`${change.kind}/${change.key}: ${change.action}${renamed}${deprecates}`)}`);
    if ((change.fields ?? []).length > 0) out.push(fieldsTable(change.fields ?? [], document.overwriteConsole));
    out.push('</div>');
  }
  for (const process of section.plan.processes ?? []) {
    const instances = process.instances ?? [];
    if (instances.length === 0) continue;
    out.push(`<div class="box"><b>Process/${escapeHtml(process.key)}</b> v${process.fromVersion ?? '—'} → v${process.toVersion}: ${instances.map((i) => escapeHtml(`${i.open} open on v${i.version} — ${i.fate}${i.migrationRequired ? ' (migration required)' : ''}`)).join('; ')}</div>`);
  }
  for (const problem of section.plan.problems ?? []) {
    const severity = problem.severity === 'warning' ? 'warning' : 'refusal';
    const where = problem.file ? ` <span class="dim">${escapeHtml(`${problem.file}${problem.line ? `:${problem.line}` : ''}`)}</span>` : '';
    out.push(`<div class="box ${severity}"><b>${escapeHtml(problem.severity ?? 'error')} ${escapeHtml(problem.code)}</b>: ${escapeHtml(problem.message)}${where}${problem.hint ? `<div class="dim">hint: ${escapeHtml(problem.hint)}</div>` : ''}</div>`);
  }
  return out;
}

/** Each field that changes: before and after, a line difference for structured values, and who owns it. */
function fieldsTable(fields: readonly CorePlanField[], overwriteConsole: boolean): string {
  const rows = fields.map((field) => {
    const owner = field.owner === 'console' ? `console edit — ${(field.applies ?? overwriteConsole) ? 'overwritten' : 'kept'}` : (field.owner ?? 'package');
    return `<tr><td><code>${escapeHtml(field.path)}</code></td><td>${escapeHtml(owner)}</td><td>${difference(field.before, field.after)}</td></tr>`;
  });
  return `<table class="fields"><tr><th>field</th><th>owner</th><th>before → after</th></tr>${rows.join('')}</table>`;
}

function difference(before: unknown, after: unknown): string {
  const structured = (value: unknown): boolean => typeof value === 'object' && value !== null;
  if (!structured(before) && !structured(after)) {
    return `<span class="del">${escapeHtml(JSON.stringify(before) ?? '(none)')}</span> → <span class="add">${escapeHtml(JSON.stringify(after) ?? '(none)')}</span>`;
  }
  const diff = lineDiff(JSON.stringify(before ?? null, null, 2), JSON.stringify(after ?? null, null, 2));
  const lines = diff.split('\n').map((line) => {
    const kind = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'same';
    // a changed line is a block of its own: it ends its line without a newline
    return kind === 'same' ? `${escapeHtml(line)}\n` : `<span class="${kind}">${escapeHtml(line)}</span>`;
  });
  return `<pre class="diff">${lines.join('')}</pre>`;
}

function consoleEditsHtml(document: PlanDocument): string[] {
  const edits = consoleEdits(document);
  if (edits.length === 0) return [];
  const how = document.overwriteConsole ? 'overwritten (overwriteConsole)' : 'kept (to overwrite — plan --overwrite-console)';
  return ['<h2>Console edits</h2>', `<div class="box">${escapeHtml(`console edits: ${how}`)}<ul>${edits.map((edit) => `<li>${escapeHtml(edit.label)}</li>`).join('')}</ul></div>`];
}
