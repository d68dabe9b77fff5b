/**
 * The core's limit on the size of a package: it takes a package as one request of at most 1,000 files
 * (compat-core-packages.md §1.1) and refuses a larger one (`400 invalid_request`, the local core
 * `422 /package/files must NOT have more than 1000 items`) — in `check --server`, `plan` and `apply`. Found
 * here, it costs no round trip and no full plan.
 */
import type { Package } from '../../model/package.js';
import { defineRule } from '../rule.js';

/** Files the core takes in one package (`PackageSource.files`, maxItems). */
export const CORE_MAX_PACKAGE_FILES = 1000;

export const packageSize = defineRule({
  id: 'manifest/package-size',
  description: 'A package holds no more files than the core takes in one request.',
  codes: {
    invalid_request: {
      severity: 'error',
      summary: 'A package holds more than 1,000 files that the core reads: the core refuses the request (check --server, plan, apply).',
      message: (d: { pkg: string; count: number; limit: number }) =>
        `package ${d.pkg} holds ${d.count} files the core reads, more than the ${d.limit} it takes in one request (/package/files)`,
    },
  },
  check(context) {
    for (const pkg of context.packages()) {
      const count = coreFileCount(pkg);
      if (count <= CORE_MAX_PACKAGE_FILES) continue;
      context.report('invalid_request', { document: pkg.manifest, pointer: '' }, { pkg: pkg.key, count, limit: CORE_MAX_PACKAGE_FILES }, {
        hint: 'split the package in packages that require each other',
      });
    }
  },
});

/**
 * The files of the package that reach the core, as loaded: the manifest, objects (a KnowledgePack stays with
 * package-sdk), tests, dictionaries, upload templates and data schemas. Files the loader does not read
 * (`$ref` targets other than data schemas) are not counted, so the count is never more than the core's.
 */
function coreFileCount(pkg: Package): number {
  const objects = pkg.objects.filter((object) => object.kind !== 'KnowledgePack').length;
  return 1 + objects + pkg.tests.length + pkg.dictionaries.length + pkg.templates.length + pkg.dataSchemas.length;
}
