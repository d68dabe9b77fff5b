/**
 * A diagram as Graphviz DOT: the source of the SVG. Every node carries its element id as its SVG `id` and its
 * name as its `<title>`, its full text as the hover (`tooltip`), its kind and status as SVG classes, so a page
 * can style and find elements; every guard's full text is the hover of its edge.
 */
import type { Diagram, DiagramCluster, DiagramEdge, DiagramNode, EdgeStyle, NodeKind, Status } from './diagram.js';

type Attributes = Record<string, string | number | undefined | { html: string }>;

const SHAPES: Record<NodeKind, Attributes> = {
  human: { shape: 'box', style: 'rounded' },
  approve: { shape: 'box', style: 'rounded', peripheries: 2 },
  call: { shape: 'box' },
  subprocess: { shape: 'box', peripheries: 2 },
  decide: { shape: 'diamond' },
  recall: { shape: 'cylinder' },
  remember: { shape: 'cylinder' },
  listen: { shape: 'hexagon' },
  wait: { shape: 'ellipse' },
  set: { shape: 'parallelogram' },
  raise: { shape: 'invtrapezium' },
  compensate: { shape: 'trapezium' },
  fork: { shape: 'diamond' },
  try: { shape: 'box', style: 'dashed' },
  do: { shape: 'box', style: 'dashed' },
  suspend: { shape: 'octagon' },
  resume: { shape: 'octagon' },
  complete: { shape: 'ellipse', peripheries: 2, penwidth: 1.5 },
  start: { shape: 'ellipse', penwidth: 2 },
  trigger: { shape: 'ellipse', penwidth: 2 },
  enter: { shape: 'circle', width: 0.2, fixedsize: 'true' },
  done: { shape: 'circle', width: 0.2, fixedsize: 'true', style: 'filled', fillcolor: '#374151' },
  merge: { shape: 'point', width: 0.08 },
  join: { shape: 'diamond', width: 0.3, height: 0.3, fixedsize: 'true' },
  branch: { shape: 'cds' },
  milestone: { shape: 'cds' },
  timer: { shape: 'ellipse', style: 'dashed' },
  table: { shape: 'note' },
};

const EDGES: Record<EdgeStyle, Attributes> = {
  flow: {},
  entry: { penwidth: 1.6 },
  event: { color: '#1d4ed8', fontcolor: '#1d4ed8' },
  else: { style: 'dashed' },
  catch: { style: 'dashed', color: '#b91c1c', fontcolor: '#b91c1c' },
  timeout: { style: 'dashed', color: '#b45309', fontcolor: '#b45309' },
  compensate: { style: 'dotted', color: '#7c3aed', fontcolor: '#7c3aed' },
  table: { style: 'dotted', arrowhead: 'none', constraint: 'false', color: '#6b7280' },
};

const STATUS: Record<Status, Attributes> = {
  reached: { fillcolor: '#dcfce7', color: '#15803d' },
  missed: { fillcolor: '#ffedd5', color: '#c2410c' },
  unreachable: { fillcolor: '#f3f4f6', color: '#9ca3af', fontcolor: '#6b7280' },
};

export interface DotOptions {
  /** Put before every SVG id, so that several diagrams can share a page (default: `<process key>.`). */
  idPrefix?: string;
}

export function renderDot(diagram: Diagram, options: DotOptions = {}): string {
  const prefix = options.idPrefix ?? `${diagram.key}.`;
  const out = [`digraph ${quote(diagram.key)} {`];
  out.push(`  graph ${attributes({ rankdir: 'TB', compound: 'true', newrank: 'true', fontname: 'Helvetica', fontsize: 13, labelloc: 't', nodesep: 0.3, ranksep: 0.35, label: [diagram.title, ...diagram.lines].join('\n'), id: `${prefix}:graph`, tooltip: diagram.title })};`);
  out.push(`  node ${attributes({ fontname: 'Helvetica', fontsize: 10, margin: '0.1,0.05' })};`);
  out.push(`  edge ${attributes({ fontname: 'Helvetica', fontsize: 9, color: '#4b5563', fontcolor: '#374151', arrowsize: 0.7 })};`);
  let clusters = 0;
  const draw = (parent: DiagramCluster | undefined, indent: string): void => {
    for (const cluster of diagram.clusters.filter((candidate) => candidate.parent === parent?.name)) {
      out.push(`${indent}subgraph ${quote(`cluster_${clusters++}`)} {`);
      out.push(`${indent}  graph ${attributes(clusterAttributes(cluster, prefix))};`);
      draw(cluster, `${indent}  `);
      out.push(`${indent}}`);
    }
    for (const node of diagram.nodes.filter((candidate) => candidate.cluster === parent?.name)) out.push(`${indent}${quote(node.name)} ${attributes(nodeAttributes(node, prefix))};`);
  };
  draw(undefined, '  ');
  const unreachable = new Set(diagram.nodes.filter((node) => node.status === 'unreachable').map((node) => node.name));
  for (const edge of diagram.edges) out.push(`  ${quote(edge.from)} -> ${quote(edge.to)} ${attributes(edgeAttributes(edge, unreachable.has(edge.to)))};`);
  out.push('}');
  return out.join('\n');
}

function nodeAttributes(node: DiagramNode, prefix: string): Attributes {
  const shape = SHAPES[node.kind];
  const styles = new Set(String(shape.style ?? '').split(',').filter(Boolean));
  if (node.status !== undefined) styles.add('filled');
  if (node.status === 'unreachable' || node.guarded) styles.add('dashed');
  const point = node.kind === 'merge' || node.kind === 'enter' || node.kind === 'done' || node.kind === 'join';
  return {
    ...shape,
    ...(node.status ? STATUS[node.status] : {}),
    style: [...styles].join(',') || undefined,
    label: point ? (node.kind === 'join' ? '+' : '') : htmlLabel(node),
    xlabel: node.kind === 'done' && node.lines.length > 0 ? node.lines.join('\n') : undefined,
    id: `${prefix}${node.element ?? node.name}`,
    class: ['element', `kind-${node.kind}`, node.status, node.guarded ? 'guarded' : undefined].filter(Boolean).join(' '),
    tooltip: node.tooltip || node.title || node.kind,
  };
}

function clusterAttributes(cluster: DiagramCluster, prefix: string): Attributes {
  const fill = cluster.status ? STATUS[cluster.status].fillcolor : cluster.kind === 'stage' ? '#f9fafb' : '#ffffff';
  return {
    label: cluster.element !== undefined && cluster.element !== cluster.label ? `${cluster.label} (${cluster.element})` : cluster.label,
    style: cluster.status === 'unreachable' ? 'rounded,dashed,filled' : 'rounded,filled',
    fillcolor: fill,
    color: cluster.status ? STATUS[cluster.status].color : cluster.kind === 'stage' ? '#6b7280' : '#d1d5db',
    id: `${prefix}${cluster.element ?? cluster.name}`,
    class: ['cluster', `cluster-${cluster.kind}`, cluster.status].filter(Boolean).join(' '),
    tooltip: cluster.tooltip,
    labeljust: 'l',
  };
}

function edgeAttributes(edge: DiagramEdge, toUnreachable: boolean): Attributes {
  return {
    ...EDGES[edge.style],
    ...(toUnreachable ? { color: '#9ca3af', style: 'dashed' } : {}),
    label: edge.label,
    tooltip: edge.tooltip ?? edge.label,
    labeltooltip: edge.tooltip,
  };
}

/** A Graphviz HTML label: the title in bold, the lines below it smaller. */
function htmlLabel(node: DiagramNode): { html: string } {
  const lines = node.lines.map((line) => `<br/><font point-size="8">${xml(line)}</font>`).join('');
  return { html: `<<b>${xml(node.title)}</b>${lines}>` };
}

function attributes(values: Attributes): string {
  const parts = Object.entries(values).flatMap(([name, value]) => {
    if (value === undefined) return [];
    if (typeof value === 'object') return [`${name}=${value.html}`];
    return [`${name}=${typeof value === 'number' ? value : quote(value)}`];
  });
  return `[${parts.join(', ')}]`;
}

/** A DOT quoted string (`\n` a centred line break). */
function quote(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

function xml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
