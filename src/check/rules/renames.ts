import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import { CATALOG_KINDS } from '../../model/kinds.js';
import type { PackageObject } from '../../model/package.js';
import { defineRule } from '../rule.js';
import { eachMapping, eachString, installationSpec } from '../values.js';
import { isRecord } from '../../json/guards.js';

const CATALOG_KIND_SET: ReadonlySet<string> = new Set(CATALOG_KINDS);

/**
 * `renames` of a manifest (compat-package-sdk-check.md §2.12): the plan moves `Kind/from` to `Kind/to`, so the
 * kind is a catalog kind and the package declares the object under its new key.
 */
export const renames = defineRule({
  id: 'renames/targets',
  description: 'A rename names a catalog kind, and the package declares the object under its new key.',
  codes: {
    rename_unknown_kind: {
      severity: 'error',
      summary: 'A rename names a kind that is not a catalog kind.',
      message: (d: { kind: string }) => `renames: kind '${d.kind}' is not a catalog object`,
    },
    rename_target_missing: {
      severity: 'error',
      summary: 'A rename moves an object to a key that the package does not declare.',
      message: (d: { kind: string; to: string; pkg: string }) => `renames: ${d.kind}/${d.to} — no such object in the package ${d.pkg}`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      const spec = isRecord(pkg.manifest.value) ? pkg.manifest.value.spec : undefined;
      if (!isRecord(spec)) continue;
      eachMapping(spec.renames, '/spec/renames', (rename, pointer) => {
        const { kind, from, to } = rename;
        if (typeof kind !== 'string' || typeof to !== 'string') return;
        if (!CATALOG_KIND_SET.has(kind)) {
          const hint = didYouMean(kind, CATALOG_KINDS);
          context.report('rename_unknown_kind', { document: pkg.manifest, pointer: childPointer(pointer, 'kind') }, { kind }, hint ? { hint } : {});
          return;
        }
        const keys = pkg.objects.filter((object) => object.kind === kind).map((object) => object.key);
        if (keys.includes(to)) return;
        context.report('rename_target_missing', { document: pkg.manifest, pointer: childPointer(pointer, 'to') }, { kind, to, pkg: pkg.key }, {
          hint: keys.includes(from as string)
            ? `the package still declares ${kind}/${String(from)}: change its key to '${to}'`
            : (didYouMean(to, keys) ?? `declare ${kind}/${to} in the package, or drop the rename`),
        });
      });
    }
  },
});

/**
 * `retire` of an installation (compat-package-sdk-check.md §2.12). Which kinds can be retired is the schema's
 * job; here: the system task type stays, and an object is not both installed and retired.
 */
export const retire = defineRule({
  id: 'renames/retire',
  description: 'An installation retires neither the system task type nor an object that its packages declare.',
  codes: {
    retire_system_type: {
      severity: 'error',
      summary: 'The installation retires the system task type task.',
      message: () => 'retire: the system type task cannot be retired',
    },
    retire_declared: {
      severity: 'error',
      summary: 'The installation retires an object that one of its packages declares.',
      message: (d: { ref: string; file: string }) => `retire: ${d.ref} is both declared in the package (${d.file}) and retired`,
    },
  },
  check(context) {
    const installation = context.workspace.installation;
    const retired = installationSpec(installation?.document.value)?.retire;
    if (!installation || !isRecord(retired)) return;
    const declared = new Map<string, PackageObject>();
    for (const object of context.workspace.objects()) declared.set(`${object.kind}/${object.key}`, object);
    for (const [kind, keys] of Object.entries(retired)) {
      eachString(keys, childPointer('/spec/retire', kind), (key, pointer) => {
        const place = { document: installation.document, pointer };
        if (kind === 'TaskType' && key === 'task') {
          context.report('retire_system_type', place, undefined, { hint: 'remove task from retire.TaskType' });
          return;
        }
        const object = declared.get(`${kind}/${key}`);
        if (object) {
          context.report('retire_declared', place, { ref: `${kind}/${key}`, file: object.file }, {
            hint: `remove it from retire.${kind}, or remove the object from package ${object.package}`,
          });
        }
      });
    }
  },
});
