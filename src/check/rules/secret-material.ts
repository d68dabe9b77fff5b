import type { SourceDocument } from '../../json/document.js';
import { childPointer } from '../../json/pointer.js';
import { dottedPath } from '../../process/index.js';
import { defineRule } from '../rule.js';
import { findCredentialMaterial, isSecretLikeName } from '../secrets.js';
import { isRecord } from '../../json/guards.js';

/**
 * Secrets do not travel in packages (compat-package-sdk-check.md §2.3, §2.15): the core refuses a task type
 * field or a connection setting named like a secret, and any string of a connection type that holds access
 * material (`secret_material_rejected`). An administrator enters secret values in the console.
 */
export const secretMaterial = defineRule({
  id: 'secrets/material',
  description: 'Task type fields and connection settings are not named like secrets; connection types hold no access material.',
  codes: {
    secret_material_rejected: {
      severity: 'error',
      summary: 'A TaskType fieldSchema or ConnectionType settingsSchema property is named like a secret, or a ConnectionType string holds access material.',
      message: (d: { field: string; name: string } | { field: string; material: string }) =>
        'name' in d
          ? `${d.field}: property '${d.name}' is named like a secret — a package carries no secret values, the core refuses it`
          : `${d.field} holds what looks like ${d.material} — a package carries no secret values, the core refuses it`,
    },
  },
  check(context) {
    const namedLikeSecret = (document: SourceDocument, schema: unknown, pointer: string) => {
      for (const property of secretNamedProperties(schema, pointer)) {
        context.report(
          'secret_material_rejected',
          { document, pointer: property.pointer, part: 'key' },
          { field: dottedPath(pointer).replace(/^spec\./, ''), name: property.name },
          { hint: 'rename the property; a secret is entered by an administrator, or named by a secretRef' },
        );
      }
    };
    for (const type of context.objects('TaskType')) namedLikeSecret(type.document, type.spec.fieldSchema, '/spec/fieldSchema');
    for (const type of context.objects('ConnectionType')) {
      namedLikeSecret(type.document, type.spec.settingsSchema, '/spec/settingsSchema');
      for (const { text, pointer } of stringsUnder(type.spec, '/spec')) {
        const found = findCredentialMaterial(text);
        if (!found) continue;
        context.report(
          'secret_material_rejected',
          { document: type.document, pointer, offset: found.offset, length: found.length },
          { field: dottedPath(pointer).replace(/^spec\./, ''), material: found.kind },
          { hint: 'remove it (and revoke it: it has been in git); an administrator enters access material in the console' },
        );
      }
    }
  },
});

/** Parts of a JSON Schema that describe the properties of the value (not keywords like enum or default). */
const SUBSCHEMA_LISTS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'if', 'then', 'else'];

/** Properties named like secrets anywhere in the skeleton of `schema` (properties, items, combinators). */
function secretNamedProperties(schema: unknown, pointer: string): { name: string; pointer: string }[] {
  const found: { name: string; pointer: string }[] = [];
  const visit = (node: unknown, at: string): void => {
    if (!isRecord(node)) return;
    if (isRecord(node.properties)) {
      for (const [name, sub] of Object.entries(node.properties)) {
        const property = childPointer(childPointer(at, 'properties'), name);
        if (isSecretLikeName(name)) found.push({ name, pointer: property });
        visit(sub, property);
      }
    }
    for (const key of SUBSCHEMAS) visit(node[key], childPointer(at, key));
    for (const key of SUBSCHEMA_LISTS) {
      const list = node[key];
      if (Array.isArray(list)) list.forEach((sub, index) => visit(sub, childPointer(childPointer(at, key), index)));
    }
  };
  visit(schema, pointer);
  return found;
}

/** Every string value under `value`, with its pointer. */
function stringsUnder(value: unknown, pointer: string): { text: string; pointer: string }[] {
  const strings: { text: string; pointer: string }[] = [];
  const visit = (node: unknown, at: string): void => {
    if (typeof node === 'string') strings.push({ text: node, pointer: at });
    else if (Array.isArray(node)) node.forEach((item, index) => visit(item, childPointer(at, index)));
    else if (isRecord(node)) for (const [key, item] of Object.entries(node)) visit(item, childPointer(at, key));
  };
  visit(value, pointer);
  return strings;
}
