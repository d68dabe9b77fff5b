import type { PackageObject } from '../../model/package.js';
import { defineRule } from '../rule.js';

/**
 * The same object declared twice anywhere in the installation (compat-package-sdk-check.md §2.2). It runs on
 * every object, also those that fail the schema: two files claiming one identity is a mistake either way.
 */
export const duplicates = defineRule({
  id: 'objects/duplicates',
  description: 'An object (kind and key, or key@version for skills and connection types) is declared once per installation.',
  codes: {
    duplicate_object: {
      severity: 'error',
      core: true,
      summary: 'The same Kind/key (Kind/key@version for Skill and ConnectionType) is declared twice in the installation.',
      message: (d: { ref: string; first: string }) => `${d.ref} is already declared in ${d.first}`,
    },
  },
  check(context) {
    const first = new Map<string, PackageObject>();
    for (const object of context.workspace.objects()) {
      const earlier = first.get(object.ref);
      if (!earlier) {
        first.set(object.ref, object);
        continue;
      }
      context.report('duplicate_object', { document: object.document, pointer: '/key' }, { ref: object.ref, first: earlier.file }, {
        hint: 'rename one of them, or remove the copy',
      });
    }
  },
});
