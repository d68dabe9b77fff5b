/** Every process fixture of the repository, and a browser for the suites that need one. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { isRecord } from '../../src/json/guards.js';
import { FIXTURES } from '../support/overlay.js';

export interface ProcessFixture {
  /** Path under fixtures/. */
  name: string;
  key: string;
  spec: Record<string, unknown>;
}

/** Where processes live among our fixtures (rule cases only as their bases; invalid loads and schema cases left out). */
const ROOTS = ['example', 'sandbox', 'packages', 'check/_bases', 'core', 'cel', 'graph', 'load/valid', 'schema/process/valid-refund.yaml'];

export function processFixtures(): ProcessFixture[] {
  const found: ProcessFixture[] = [];
  const visit = (path: string): void => {
    if (readdirSafe(path) !== undefined) {
      for (const entry of readdirSafe(path)!.sort()) visit(join(path, entry));
      return;
    }
    if (!/\.ya?ml$/.test(path)) return;
    const text = readFileSync(path, 'utf8');
    if (!/^kind: Process$/m.test(text)) return;
    const value: unknown = parse(text);
    if (isRecord(value) && value.kind === 'Process' && typeof value.key === 'string' && isRecord(value.spec)) {
      found.push({ name: relative(FIXTURES, path), key: value.key, spec: value.spec });
    }
  };
  for (const root of ROOTS) visit(join(FIXTURES, root));
  return found;
}

function readdirSafe(path: string): string[] | undefined {
  try {
    return existsSync(path) ? readdirSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** Graphviz writes `-` in ids as `&#45;`: the SVG with its character references read back. */
export function decodeEntities(svg: string): string {
  return svg.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/&amp;/g, '&');
}
