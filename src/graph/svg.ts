/**
 * DOT to SVG in this process, with Graphviz built to WebAssembly (@viz-js/viz): no system binary, no browser.
 * The module is loaded on the first SVG asked for, never by a diagram in another format — by `require` of its
 * CommonJS build, which also works inside the lean entry's bundle (a script run from V8's code cache, where
 * `import()` has no loader).
 */
import { createRequire } from 'node:module';
import type { Viz } from '@viz-js/viz';

let viz: Promise<Viz> | undefined;

/** The SVG document of `dot`; a DOT Graphviz refuses is a bug of the renderer, and throws. */
export async function renderSvg(dot: string): Promise<string> {
  viz ??= loadViz().instance();
  const result = (await viz).render(dot, { format: 'svg' });
  if (result.status !== 'success') {
    throw new Error(`Graphviz refused the diagram: ${result.errors.map((error) => error.message).join('; ')}`);
  }
  return result.output;
}

function loadViz(): typeof import('@viz-js/viz') {
  const load = createRequire(import.meta.url);
  return load('@viz-js/viz') as typeof import('@viz-js/viz');
}

/** The `<svg>` element alone, to put inside an HTML page (without the XML declaration and doctype). */
export function inlineSvg(svg: string): string {
  const start = svg.indexOf('<svg');
  return start < 0 ? svg : svg.slice(start);
}
