/**
 * A diagram as a Mermaid flowchart — the form GitHub and GitLab draw in a README. Shapes by kind from the
 * classic flowchart shapes every Mermaid version reads; statuses and guarded steps as classes. Texts are
 * quoted with Mermaid's entity codes, so no label can break the syntax.
 */
import type { Diagram, DiagramCluster, DiagramNode, EdgeStyle, NodeKind, Status } from './diagram.js';

/** The opening and closing brackets of each kind's shape. */
const SHAPES: Record<NodeKind, [string, string]> = {
  human: ['(', ')'], approve: ['([', '])'], call: ['[', ']'], subprocess: ['[[', ']]'], decide: ['{', '}'],
  recall: ['[(', ')]'], remember: ['[(', ')]'], listen: ['{{', '}}'], wait: ['((', '))'], set: ['[/', '/]'],
  raise: ['[\\', '/]'], compensate: ['[/', '\\]'], fork: ['{', '}'], try: ['[', ']'], do: ['[', ']'],
  suspend: ['[\\', '\\]'], resume: ['[\\', '\\]'], complete: ['(((', ')))'],
  start: ['([', '])'], trigger: ['([', '])'], enter: ['((', '))'], done: ['((', '))'], merge: ['((', '))'],
  join: ['{', '}'], branch: ['>', ']'], milestone: ['>', ']'], timer: ['((', '))'], table: ['[[', ']]'],
};

const ARROWS: Record<EdgeStyle, string> = {
  flow: '-->', entry: '==>', event: '-->', else: '-.->', catch: '-.->', timeout: '-.->', compensate: '-.->', table: '-.-',
};

const CLASSES: Record<Status | 'guarded' | 'point', string> = {
  reached: 'fill:#dcfce7,stroke:#15803d,color:#14532d',
  missed: 'fill:#ffedd5,stroke:#c2410c,color:#7c2d12',
  unreachable: 'fill:#f3f4f6,stroke:#9ca3af,color:#6b7280,stroke-dasharray:4 3',
  guarded: 'stroke-dasharray:5 3',
  point: 'fill:#374151,stroke:#374151,color:#ffffff',
};

/** Mermaid's entity codes for the characters that would end or open markup in a label. */
export function mermaidText(value: string): string {
  return value.replace(/[#&<>"]/g, (char) => `#${char.charCodeAt(0)};`);
}

export function renderMermaid(diagram: Diagram): string {
  const ids = new MermaidIds();
  const out = ['flowchart TB'];
  const drawCluster = (cluster: DiagramCluster | undefined, indent: string): void => {
    for (const child of diagram.clusters.filter((candidate) => candidate.parent === cluster?.name)) {
      out.push(`${indent}subgraph ${ids.of(`c:${child.name}`)}["${mermaidText(child.label)}"]`);
      out.push(`${indent}  direction TB`);
      drawCluster(child, `${indent}  `);
      out.push(`${indent}end`);
    }
    for (const node of diagram.nodes.filter((candidate) => candidate.cluster === cluster?.name)) out.push(`${indent}${nodeLine(node, ids)}`);
  };
  drawCluster(undefined, '  ');
  const unreachable = new Set(diagram.nodes.filter((node) => node.status === 'unreachable').map((node) => node.name));
  const greyed: number[] = [];
  diagram.edges.forEach((edge, index) => {
    const label = edge.label === undefined ? '' : `|"${mermaidText(edge.label)}"|`;
    out.push(`  ${ids.of(edge.from)} ${ARROWS[edge.style]}${label} ${ids.of(edge.to)}`);
    if (unreachable.has(edge.to)) greyed.push(index);
  });
  const classed = new Map<string, string[]>();
  const add = (name: string, id: string): void => void classed.set(name, [...(classed.get(name) ?? []), id]);
  for (const node of diagram.nodes) {
    if (node.status !== undefined) add(node.status, ids.of(node.name));
    else if (node.guarded) add('guarded', ids.of(node.name));
    if (node.kind === 'done' || node.kind === 'merge') add('point', ids.of(node.name));
  }
  for (const cluster of diagram.clusters) if (cluster.status !== undefined) add(cluster.status, ids.of(`c:${cluster.name}`));
  for (const [name, style] of Object.entries(CLASSES)) if (classed.has(name)) out.push(`  classDef ${name} ${style}`);
  for (const [name, members] of classed) out.push(`  class ${members.join(',')} ${name}`);
  if (greyed.length > 0) out.push(`  linkStyle ${greyed.join(',')} stroke:#9ca3af,stroke-dasharray:3 3`);
  return out.join('\n');
}

function nodeLine(node: DiagramNode, ids: MermaidIds): string {
  const [open, close] = SHAPES[node.kind];
  const text = [node.title, ...node.lines].filter((line) => line !== '').map(mermaidText).join('<br/>');
  return `${ids.of(node.name)}${open}"${text || ' '}"${close}`;
}

/** Mermaid ids of diagram names: letters, digits and `_` only, a prefix that no keyword takes, unique. */
class MermaidIds {
  private readonly known = new Map<string, string>();
  private readonly taken = new Set<string>();

  of(name: string): string {
    let id = this.known.get(name);
    if (id === undefined) {
      const base = `n_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
      id = base;
      for (let n = 2; this.taken.has(id); n++) id = `${base}_${n}`;
      this.known.set(name, id);
      this.taken.add(id);
    }
    return id;
  }
}
