/** Hover: the reference's description of a field, or a short summary of the object a value names. */
import type { Hover } from 'vscode-languageserver';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import { expressionTypeAt, type ExpressionType } from './cel-types.js';
import { dataPathAt } from './data-fields.js';
import { declarationOf, objectNamedAt } from './package-graph.js';
import { documentTypeOf, fieldAt } from './schema-fields.js';
import { placeAt } from './yaml-place.js';

export function hoverAt(text: string, offset: number, workspace: Workspace | undefined, process?: PackageObject): Hover | undefined {
  const place = placeAt(text, offset);
  if (!place) return undefined;
  const value = place.scalar?.value;
  if (place.part === 'value' && process && workspace) {
    const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
    const lineEnd = text.indexOf('\n', offset);
    const dataPath = dataPathAt(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd), offset - lineStart);
    const typed = expressionTypeAt(process, workspace.package(process.package), place.path, dataPath);
    if (typed) return { contents: { kind: 'markdown', value: typeText(typed) } };
  }
  if (place.part === 'value' && typeof value === 'string' && workspace) {
    const named = objectNamedAt(place.path, value);
    const object = named && declarationOf(workspace, named);
    if (object) return { contents: { kind: 'markdown', value: summaryOf(object) } };
  }
  const field = fieldAt(place.path, documentTypeOf(text));
  if (!field?.description) return undefined;
  return { contents: { kind: 'markdown', value: `**${field.name}** — ${field.description}` } };
}

/** `data.asset.id`: `string` — and the expression's type. */
function typeText(typed: ExpressionType): string {
  const whole = `CEL: \`${typed.type}\``;
  return typed.path ? `\`${typed.path.text}\`: \`${typed.path.type}\`\n\n${whole}` : whole;
}

/** `TaskType site-inspection` — its display name, its description, the file it is in. */
export function summaryOf(object: PackageObject): string {
  const lines = [`**${object.kind} ${object.id}** — ${typeof object.spec.displayName === 'string' ? object.spec.displayName : object.key}`];
  if (typeof object.spec.description === 'string') lines.push('', object.spec.description.trim());
  lines.push('', `\`${object.file}\``);
  return lines.join('\n');
}
