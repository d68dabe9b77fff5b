/**
 * Every stage-2 rule, grouped by family — one file to read to know what `check` looks for.
 */
import type { Rule } from '../rule.js';
import { duplicates } from './duplicates.js';

export const RULES: readonly Rule[] = [
  // objects
  duplicates,
];
