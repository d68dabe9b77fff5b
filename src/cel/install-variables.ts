/**
 * Installation variables (`${CLAIMS_REFUND_THRESHOLD}`) inside an expression. The core receives the text with the
 * values in place, so the expression is checked that way too: each `${NAME}` becomes the variable's value, its
 * default or its example, or else a value of its kind (`0`, `http://env.invalid`, a nil UUID) or `dyn(0)`. Offsets in the substituted text map back to the text the
 * author wrote, so a finding underlines what is in the file.
 */

/** What the package manifest says of a variable (`spec.variables.<NAME>`), plus a value when one is known. */
export interface InstallVariable {
  value?: string;
  default?: string;
  example?: string;
  /** `url`, `workspace`, `project`, `principal`, `role`, `integer`, `string`, … */
  kind?: string;
}

const REFERENCE = /\$\{([A-Z][A-Z0-9_]*)\}/g;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const VALUE_OF_KIND: Record<string, string> = {
  integer: '0',
  url: 'http://env.invalid',
  workspace: NIL_UUID,
  project: NIL_UUID,
  principal: NIL_UUID,
  role: NIL_UUID,
};

/** The text with variables in place, and the way back to offsets of the original. */
export interface Substituted {
  text: string;
  /** Names of the `${…}` references, in order of appearance. */
  names: string[];
  /** Offset in the original text of offset `offset` of `text`; inside a value, the start of its `${…}`. */
  toOriginal(offset: number): number;
  /** Like `toOriginal`, for the end of a range: inside a value, the end of its `${…}`. */
  toOriginalEnd(offset: number): number;
}

interface Replacement {
  /** Where the value starts and ends in the substituted text. */
  from: number;
  to: number;
  /** Where `${…}` starts and ends in the original. */
  originalFrom: number;
  originalTo: number;
}

/**
 * A variable with no value, default or example, of a kind without a typical value (or not declared at all —
 * `variable_undeclared` is the manifest rule's finding), stands as `dyn(0)`: it type-checks in any place, so one
 * missing value does not turn into a cascade of type errors.
 */
const UNKNOWN_VALUE = 'dyn(0)';

function valueOfVariable(variable: InstallVariable | undefined): string {
  return variable?.value ?? variable?.default ?? variable?.example ?? VALUE_OF_KIND[variable?.kind ?? ''] ?? UNKNOWN_VALUE;
}

export function substituteVariables(source: string, variables: Readonly<Record<string, InstallVariable>> = {}): Substituted {
  if (!source.includes('${')) return { text: source, names: [], toOriginal: identity, toOriginalEnd: identity };
  const replacements: Replacement[] = [];
  const names: string[] = [];
  let text = '';
  let last = 0;
  for (const match of source.matchAll(REFERENCE)) {
    const index = match.index;
    const value = valueOfVariable(Object.hasOwn(variables, match[1]) ? variables[match[1]] : undefined);
    text += source.slice(last, index);
    replacements.push({ from: text.length, to: text.length + value.length, originalFrom: index, originalTo: index + match[0].length });
    text += value;
    names.push(match[1]);
    last = index + match[0].length;
  }
  text += source.slice(last);
  const map = (offset: number, end: boolean): number => {
    let shift = 0;
    for (const r of replacements) {
      if (offset < r.from || (end && offset === r.from)) break;
      if (offset < r.to || (end && offset === r.to)) return end ? r.originalTo : r.originalFrom;
      shift = r.originalTo - r.to;
    }
    return offset + shift;
  };
  return { text, names, toOriginal: (offset) => map(offset, false), toOriginalEnd: (offset) => map(offset, true) };
}

function identity(offset: number): number {
  return offset;
}
