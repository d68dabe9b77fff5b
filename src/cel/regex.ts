/**
 * Regular expressions of `matches()` as the core runs them: RE2 (cel-cpp), so `(?i)` flags and `[[:alpha:]]`
 * classes work, and look-around or back-references are refused. The same engine checks a literal pattern and
 * evaluates the call, through `re2js` (a pure JavaScript port: nothing to load at start, and it bundles).
 */
import { RE2JS } from 're2js';
import { BoundedCache } from '../json/bounded-cache.js';

/** Patterns compiled lately: the local core evaluates patterns it is sent, and an editor checks each edit of one. */
const compiled = new BoundedCache<string, { regex: RE2JS } | { error: string }>(1024);

/** The compiled pattern, or why RE2 refuses it. */
export function compileRegex(pattern: string): { regex: RE2JS } | { error: string } {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    try {
      entry = { regex: RE2JS.compile(pattern) };
    } catch (error) {
      entry = { error: (error as Error).message.replace(/^error parsing regexp: /, '') };
    }
    compiled.set(pattern, entry);
  }
  return entry;
}
