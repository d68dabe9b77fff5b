import { childPointer } from '../../json/pointer.js';
import { defineObjectRule } from '../rule.js';
import { isSecretLikeName } from '../secrets.js';
import { isRecord } from '../../json/guards.js';

/**
 * Custom fields of a task named like secrets (compat-package-sdk-check.md §2.3, §2.15): a secret value would
 * sit in the task for everyone who reads it. The Python package-sdk refuses them in its layer B; the core
 * itself scans the values of custom fields when a task is created, not the field schema when a type is
 * published — so this is `check`'s own rule, not one the core's package check runs.
 */
export const secretMaterial = defineObjectRule({
  id: 'secrets/field-names',
  description: 'The custom fields of a task type are not named like secrets.',
  codes: {
    secret_material_rejected: {
      severity: 'error',
      summary: 'A TaskType fieldSchema property is named like a secret.',
      message: (d: { field: string; name: string }) => `${d.field}: property '${d.name}' is named like a secret — a package carries no secret values: the value of such a field would sit in every task`,
    },
  },
  subjects: ['TaskType'],
  checkObject(context, type) {
    for (const property of secretNamedProperties(type.spec.fieldSchema, '/spec/fieldSchema')) {
      context.report(
        'secret_material_rejected',
        { document: type.document, pointer: property.pointer, part: 'key' },
        { field: 'fieldSchema', name: property.name },
        { hint: 'rename the property; a secret is entered by an administrator, or named by a secretRef' },
      );
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
