/**
 * `package-sdk edit <operation>`: style-preserving edits of a package's files (yaml-edit.ts), each checked
 * with the package before anything is written (commit.ts). One typed request per operation; the commands
 * and the MCP server call `editPackage` alike.
 */
import { resolve } from 'node:path';
import { Refusal } from '../../fs/refusal.js';
import { commitEdit, type EditResult, type FileChange } from './commit.js';
import { addDecisionRow, addEventHandler, addFormField, addStage, addStep, type AddFormFieldRequest, type AddHandlerRequest, type AddRowRequest, type AddStageRequest, type AddStepRequest } from './process-edits.js';
import { renameElement, renameObject, type RenameChanges } from './rename.js';
import { setValue, type SetRequest } from './set.js';
import { openTarget } from './target.js';

export type { EditResult } from './commit.js';

export type EditRequest =
  | ({ operation: 'add-step'; file: string } & AddStepRequest)
  | ({ operation: 'add-stage'; file: string } & AddStageRequest)
  | ({ operation: 'add-decision-row'; file: string } & AddRowRequest)
  | ({ operation: 'add-rule'; file: string; table?: string; row?: unknown; onEvent?: unknown; index?: number })
  | ({ operation: 'add-form-field'; file: string } & AddFormFieldRequest)
  | { operation: 'rename'; file?: string; package?: string; kind?: string; from: string; to: string; migration?: boolean }
  | ({ operation: 'set'; file: string } & SetRequest);

export type EditOperation = EditRequest['operation'];

export const EDIT_OPERATIONS: readonly EditOperation[] = ['add-step', 'add-stage', 'add-decision-row', 'add-rule', 'add-form-field', 'rename', 'set'];

export interface EditOptions {
  cwd?: string;
  /** Check and show the diff, write nothing. */
  dryRun?: boolean;
}

export async function editPackage(request: EditRequest, options: EditOptions = {}): Promise<EditResult> {
  const cwd = options.cwd ?? process.cwd();
  const commit = (changes: readonly FileChange[], packageDir: string): Promise<EditResult> =>
    commitEdit(changes, { operation: request.operation, packageDir, cwd, dryRun: options.dryRun ?? false });
  if (request.operation === 'rename') {
    const { changes, packageDir } = await rename(request, cwd);
    return commit(changesOf(changes), packageDir);
  }
  const target = await openTarget(request.file, cwd);
  switch (request.operation) {
    case 'add-step':
      addStep(target, request, cwd);
      break;
    case 'add-stage':
      addStage(target, request, cwd);
      break;
    case 'add-decision-row':
      addDecisionRow(target, request, cwd);
      break;
    case 'add-rule':
      addRule(target, request, cwd);
      break;
    case 'add-form-field':
      addFormField(target, request, cwd);
      break;
    case 'set':
      setValue(target, request, cwd);
      break;
  }
  return commit([{ path: target.path, before: target.edit.text, text: target.edit.toString() }], target.packageDir);
}

/** `add-rule`: a row of a decision table (`--table --row`), or an event handler of the process (`--on-event`). */
function addRule(target: Awaited<ReturnType<typeof openTarget>>, request: Extract<EditRequest, { operation: 'add-rule' }>, cwd: string): void {
  const byTable = request.table !== undefined || request.row !== undefined;
  if (byTable === (request.onEvent !== undefined)) throw new Refusal('usage', 'add-rule takes either --table and --row, or --on-event', { exitCode: 2 });
  if (request.onEvent !== undefined) {
    const handler: AddHandlerRequest = { onEvent: request.onEvent, ...(request.index !== undefined ? { index: request.index } : {}) };
    return addEventHandler(target, handler, cwd);
  }
  if (request.table === undefined || request.row === undefined) throw new Refusal('usage', 'add-rule --table needs --row (and --row needs --table)', { exitCode: 2 });
  addDecisionRow(target, { table: request.table, row: request.row, ...(request.index !== undefined ? { index: request.index } : {}) }, cwd);
}

async function rename(request: Extract<EditRequest, { operation: 'rename' }>, cwd: string): Promise<{ changes: RenameChanges; packageDir: string }> {
  if ((request.file === undefined) === (request.package === undefined)) throw new Refusal('usage', 'rename takes either --file (an element of a process) or --package (an object)', { exitCode: 2 });
  if (request.from === request.to) throw new Refusal('usage', `--from and --to are both '${request.from}'`, { exitCode: 2 });
  const migration = request.migration ?? true;
  if (request.file !== undefined) {
    const target = await openTarget(request.file, cwd);
    return { changes: await renameElement(target, request.from, request.to, migration), packageDir: target.packageDir };
  }
  const packageDir = resolve(cwd, request.package!);
  return { changes: await renameObject(packageDir, request.kind, request.from, request.to, migration), packageDir };
}

function changesOf(changes: RenameChanges): FileChange[] {
  return [
    ...changes.edits.map(({ path, edit, to }) => ({ path: to ?? path, before: edit.text, text: edit.toString(), ...(to !== undefined ? { from: path } : {}) })),
    ...changes.files,
  ];
}
