/**
 * What the `edit` commands share: their flags, and how the result of an edit is shown — the unified diff
 * with `--dry-run`, else one line per file written, then the warnings the edit brings.
 */
import { Flags } from '@oclif/core';
import type { EditRequest, EditResult } from '../author/edit/index.js';

export const EDIT_FLAGS = {
  'dry-run': Flags.boolean({ summary: 'Check the edit and print its unified diff; write nothing.' }),
};

export const FILE_FLAG = {
  file: Flags.string({ required: true, summary: 'The object file to edit.', helpValue: 'FILE' }),
};

export const EDIT_DESCRIPTION_TAIL = `The edit keeps the file's comments, key order, quoting and flow style, and is checked with the whole package
before anything is written: an edit that would bring an error the package does not have is refused, and the
file is left as it was. Fragments are YAML, or @FILE for the YAML in a file.

Exit status: 0 edited (or, with --dry-run, the edit is valid), 1 refused, 2 usage or I/O problems.`;

/** Runs the edit and prints what it did (text mode); returns the result for --json. */
export async function runEdit(request: EditRequest, dryRun: boolean, log: ((text: string) => void) | undefined, warn: (text: string) => void): Promise<EditResult> {
  const { editPackage } = await import('../author/edit/index.js');
  const result = await editPackage(request, { dryRun });
  if (log) {
    if (dryRun) log(result.diff === '' ? 'no change' : result.diff.replace(/\n$/, ''));
    else if (result.files.length === 0) log('no change');
    else for (const file of result.files) log(file.from ? `renamed ${file.from} → ${file.file}` : `updated ${file.file}`);
    for (const finding of result.warnings) warn(`warning: ${finding.file}:${finding.line}: ${finding.code}: ${finding.message}`);
  }
  return result;
}
