/**
 * The diagrams of processes as one HTML page (`graph --format html`), and the piece the test page reuses: a
 * process's SVG with a legend of what its colours mean and, when a test run is drawn, what it reached.
 */
import type { Diagram } from '../graph/diagram.js';
import { inlineSvg } from '../graph/svg.js';
import { escapeHtml, htmlPage } from './page-html.js';

export interface DrawnProcess {
  diagram: Diagram;
  /** The file the process is written in. */
  file: string;
  /** Its SVG (see src/graph/svg.ts). */
  svg: string;
}

/** One process: heading, where it is written, its legend and its picture. */
export function processSection(process: DrawnProcess): string {
  const count = (status: string): number => process.diagram.nodes.filter((node) => node.element !== undefined && node.status === status).length
    + process.diagram.clusters.filter((cluster) => cluster.element !== undefined && cluster.status === status).length;
  const legend = ['reached', 'missed', 'unreachable']
    .filter((status) => count(status) > 0)
    .map((status) => `<span class="${status}">${status === 'missed' ? 'not reached' : status} (${count(status)})</span>`);
  if (process.diagram.nodes.some((node) => node.guarded)) legend.push('<span class="guarded">runs only when its guard holds</span>');
  return [
    `<section class="process" id="process-${escapeHtml(process.diagram.key)}">`,
    `<h2>${escapeHtml(process.diagram.title)} <span class="dim">(${escapeHtml(process.diagram.key)})</span></h2>`,
    `<div class="meta"><code>${escapeHtml(process.file)}</code>${process.diagram.lines.map((line) => ` · ${escapeHtml(line)}`).join('')}</div>`,
    legend.length > 0 ? `<div class="legend">${legend.join('')}</div>` : '',
    `<div class="diagram">${inlineSvg(process.svg)}</div>`,
    '</section>',
  ].join('\n');
}

export function renderGraphHtml(title: string, processes: readonly DrawnProcess[], notes: readonly string[] = []): string {
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    `<div class="meta">${processes.length} process${processes.length === 1 ? '' : 'es'} · drawn by package-sdk graph · hover a shape or an edge for its full text</div>`,
    ...notes.map((note) => `<div class="box warning">${escapeHtml(note)}</div>`),
    ...processes.map(processSection),
  ];
  return htmlPage(title, body.join('\n'));
}
