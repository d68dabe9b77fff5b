// The real package the benchmarks measure: the claims example of the corpus when PACKAGE_SDK_CORPUS
// (default ../shared/corpus beside the project) holds it, so figures stay comparable with earlier runs;
// otherwise the project's own example, fixtures/example. Rows name it by `label`, `source` says where it is.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** `{label, source, install: {cwd, file}, package: {dir, key}}` of the package measured. */
export function benchSubject(root) {
  const corpus = resolve(root, process.env.PACKAGE_SDK_CORPUS ?? '../shared/corpus');
  const claims = join(corpus, 'claims');
  if (existsSync(join(claims, 'packages.yaml'))) {
    return { label: 'claims example', source: `the corpus at ${corpus}`, install: { cwd: claims, file: 'packages.yaml' }, package: { dir: join(claims, 'claims'), key: 'claims' } };
  }
  const example = join(root, 'fixtures/example');
  return {
    label: 'field-maintenance example',
    source: `fixtures/example (no corpus at ${corpus})`,
    install: { cwd: example, file: 'packages.yaml' },
    package: { dir: join(example, 'packages/field-maintenance'), key: 'field-maintenance' },
  };
}
