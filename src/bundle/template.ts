/**
 * Bundle templates (compat-kernos §1.4 and §5): `{{path}}` inside strings and `{"$ref": "path"}` as a
 * whole value. Validation collects the paths; a run renders them against
 * `{input, steps: {<id>: {output}}, run}`.
 */
import { kernosCanonicalJson } from '../json/canonical.js';
import { emptyObject, isJsonObject, type JsonObject, type JsonValue } from '../json/parse.js';

export interface TemplateUse {
  path: string;
  /** Segments from the scanned value to the string or `$ref` object that holds the path. */
  at: string[];
}

export interface CollectedTemplates {
  uses: TemplateUse[];
  /** Objects with a `$ref` key that are not exactly `{"$ref": <string>}`. */
  badRefs: string[][];
}

/** UTF-8 byte order, the order in which the control plane (Rust BTreeMap) visits object keys. */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

export function sortedKeys(object: JsonObject): string[] {
  return Object.keys(object).sort(byteOrder);
}

/** Every `{{path}}` in a string, trimmed; an unterminated `{{` ends the scan. */
export function stringTemplatePaths(text: string): string[] {
  const paths: string[] = [];
  for (let open = text.indexOf('{{'); open !== -1; ) {
    const close = text.indexOf('}}', open + 2);
    if (close === -1) break;
    paths.push(text.slice(open + 2, close).trim());
    open = text.indexOf('{{', close + 2);
  }
  return paths;
}

export function isRefObject(value: JsonValue): value is { $ref: string } {
  return isJsonObject(value) && Object.keys(value).length === 1 && typeof value.$ref === 'string';
}

export function collectTemplates(value: JsonValue, at: string[] = [], into: CollectedTemplates = { uses: [], badRefs: [] }): CollectedTemplates {
  if (typeof value === 'string') {
    for (const path of stringTemplatePaths(value)) into.uses.push({ path, at });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => collectTemplates(item, [...at, String(i)], into));
  } else if (isJsonObject(value)) {
    if ('$ref' in value) {
      if (isRefObject(value)) into.uses.push({ path: value.$ref, at });
      else into.badRefs.push(at);
    } else {
      for (const key of sortedKeys(value)) collectTemplates(value[key]!, [...at, key], into);
    }
  }
  return into;
}

/** A template that cannot be rendered: the step fails with this code. */
export class TemplateError extends Error {
  constructor(
    readonly code: 'template_missing_path',
    readonly path: string,
  ) {
    super(`template path ${path} is missing`);
    this.name = 'TemplateError';
  }
}

/** Looks a dotted path up: object members by key, array items by an unsigned integer segment. */
export function lookupPath(context: JsonValue, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = context;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) current = /^[0-9]+$/.test(segment) ? current[Number(segment)] : undefined;
    else if (isJsonObject(current)) current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

function resolve(context: JsonValue, path: string): JsonValue {
  const value = lookupPath(context, path);
  if (value === undefined) throw new TemplateError('template_missing_path', path);
  return value;
}

export function renderString(text: string, context: JsonValue): string {
  let out = '';
  let from = 0;
  for (let open = text.indexOf('{{'); open !== -1; open = text.indexOf('{{', from)) {
    const close = text.indexOf('}}', open + 2);
    if (close === -1) break;
    const value = resolve(context, text.slice(open + 2, close).trim());
    out += text.slice(from, open) + (typeof value === 'string' ? value : kernosCanonicalJson(value));
    from = close + 2;
  }
  return out + text.slice(from);
}

export interface RenderOptions {
  /** The mock provider's extra rule: a string that is exactly one `{{path}}` keeps the value's type. */
  wholeStringKeepsType?: boolean;
}

export function renderValue(value: JsonValue, context: JsonValue, options: RenderOptions = {}): JsonValue {
  if (typeof value === 'string') {
    const whole = /^\{\{([^]*?)\}\}$/.exec(value);
    if (options.wholeStringKeepsType && whole && !whole[1]!.includes('}}')) return resolve(context, whole[1]!.trim());
    return renderString(value, context);
  }
  if (Array.isArray(value)) return value.map((item) => renderValue(item, context, options));
  if (!isJsonObject(value)) return value;
  if (isRefObject(value)) return resolve(context, value.$ref);
  const out = emptyObject();
  for (const [key, item] of Object.entries(value)) out[key] = renderValue(item, context, options);
  return out;
}
