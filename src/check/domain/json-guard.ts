/**
 * The core's shared primitives of stored documents (compat-core-validators.md §0.3): the JSON guard (an object,
 * its compact JSON within a size, nesting and node budget), the scan for members named like secrets, and the
 * scan for credential-shaped text.
 */
import { isRecord } from '../../json/guards.js';
import { childPointer } from '../../json/pointer.js';
import { findCredentialMaterial, isSecretLikeName, SECRET_NAME_TEXT } from '../secrets.js';
import { Problems, type DomainProblem } from './problems.js';

/** The default budget of a stored document; task type parts and rule parts use 16 KiB. */
export const DOCUMENT_BYTES = 64 * 1024;
export const SMALL_DOCUMENT_BYTES = 16 * 1024;
const MAX_DEPTH = 20;
const MAX_NODES = 5000;

/**
 * guard_json_document: an object within the budgets. A document that is not an object is the mistake of the
 * part it stands for (`code`: `invalid_json_schema`, `invalid_rule_action`, …); the budgets are
 * `payload_too_large` and `payload_too_deep`.
 */
export function guardProblems(value: unknown, pointer: string, label: string, code: string, maxBytes = DOCUMENT_BYTES, json = JSON.stringify(value)): DomainProblem[] {
  const problems = new Problems(code);
  if (!isRecord(value)) {
    problems.add(pointer, `${label} must be a JSON object`);
    return problems.list;
  }
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > maxBytes) problems.add(pointer, `${label} is ${bytes} bytes of JSON, more than ${maxBytes}`, { code: 'payload_too_large' });
  if (!mayExceedShape(json)) return problems.list;
  const { depth, nodes } = measure(value);
  if (depth > MAX_DEPTH) problems.add(pointer, `${label} is nested ${depth} levels deep, more than ${MAX_DEPTH}`, { code: 'payload_too_deep' });
  if (nodes > MAX_NODES) problems.add(pointer, `${label} has ${nodes} values, more than ${MAX_NODES}`, { code: 'payload_too_large' });
  return problems.list;
}

/**
 * Whether the JSON text could nest deeper than the budget or hold more values: each level opens a bracket, each
 * value takes a character and a separator. Most documents are far from both, and need no walk.
 */
function mayExceedShape(json: string): boolean {
  if (json.length > 2 * MAX_NODES) return true;
  let brackets = 0;
  for (const open of ['{', '[']) {
    for (let at = json.indexOf(open); at !== -1 && brackets <= MAX_DEPTH; at = json.indexOf(open, at + 1)) brackets += 1;
  }
  return brackets > MAX_DEPTH;
}

/** Nesting of objects and arrays (the document itself is level 1) and the number of values. */
function measure(value: unknown): { depth: number; nodes: number } {
  let nodes = 0;
  let deepest = 0;
  const visit = (node: unknown, depth: number): void => {
    nodes += 1;
    if (Array.isArray(node) || isRecord(node)) {
      deepest = Math.max(deepest, depth);
      for (const item of Array.isArray(node) ? node : Object.values(node)) visit(item, depth + 1);
    }
  };
  visit(value, 1);
  return { depth: deepest, nodes };
}

/**
 * reject_secret_material: members named like a secret anywhere in the document (the core stops at the
 * first; every one is reported here).
 */
export function secretKeyProblems(value: unknown, pointer: string, label: string, json = JSON.stringify(value)): DomainProblem[] {
  const problems = new Problems('secret_material_rejected');
  if (!SECRET_NAME_TEXT.test(json ?? '')) return problems.list;
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) node.forEach((item, index) => visit(item, childPointer(at, index)));
    else if (isRecord(node)) {
      for (const [key, item] of Object.entries(node)) {
        const member = childPointer(at, key);
        if (isSecretLikeName(key)) {
          problems.add(member, `'${key}' is named like a secret — ${label} must not store secrets; use an opaque secretRef instead`, {
            atKey: true,
            hint: 'rename it; a secret is entered by an administrator and named by a secretRef',
          });
        }
        visit(item, member);
      }
    }
  };
  visit(value, pointer);
  return problems.list;
}

/** Credential-shaped material in every string under `value` (and, with `names`, in member names). */
export function credentialProblems(value: unknown, pointer: string, label: string, options: { names?: boolean } = {}): DomainProblem[] {
  const problems = new Problems('secret_material_rejected');
  const hint = 'remove it (and revoke it: it has been in git); an administrator enters access material in the console';
  const visit = (node: unknown, at: string): void => {
    if (typeof node === 'string') {
      const found = findCredentialMaterial(node);
      if (found) problems.add(at, `${label} must not contain credentials: it holds what looks like ${found.kind}`, { hint, span: { offset: found.offset, length: found.length } });
    } else if (Array.isArray(node)) node.forEach((item, index) => visit(item, childPointer(at, index)));
    else if (isRecord(node)) {
      for (const [key, item] of Object.entries(node)) {
        const found = options.names ? findCredentialMaterial(key) : undefined;
        if (found) problems.add(childPointer(at, key), `${label} must not contain credentials: a member name holds what looks like ${found.kind}`, { hint, atKey: true });
        visit(item, childPointer(at, key));
      }
    }
  };
  visit(value, pointer);
  return problems.list;
}
