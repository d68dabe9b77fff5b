/**
 * The CI workflow `init` and `workflow` write: GitHub Actions that check and test the packages on every
 * push, and on a tag build the plan of each installation as an artifact and apply exactly that plan (by its
 * hash) once the environment's reviewers approve.
 */
import { readFileSync } from 'node:fs';

/** The workflow of a repository of packages (`package-sdk workflow`), at the repository root. */
export const WORKFLOW_PATH = '.github/workflows/package.yml';

/** The workflow of one package (`init`), at the root of the repository the package lives in. */
export function packageWorkflowPath(key: string): string {
  return `.github/workflows/${key}.yml`;
}

/**
 * The GitHub Action of the package-sdk that wrote the workflow (`action.yml` of its repository), pinned by
 * the tag of this version: CI installs the same CLI from that checkout.
 */
export function actionReference(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string; repository: { url: string } };
  const repository = new URL(manifest.repository.url.replace(/^git\+/, '')).pathname.replace(/^\//, '').replace(/\.git$/, '');
  return `${repository}@v${manifest.version}`;
}

/** Check out the repository (into `path`), install package-sdk with its action. */
function setupSteps(path?: string): string {
  const checkout = path ? `      - uses: actions/checkout@v4\n        with:\n          path: ${path}\n` : '      - uses: actions/checkout@v4\n';
  return `${checkout}      - uses: ${actionReference()}\n`;
}

/** Where a package is in its repository: its key and its path from the root (`''` when it is the repository). */
export interface PackagePlace {
  key: string;
  path: string;
}

/**
 * The workflow of one package, written at the root of its repository: check and test run in the package's
 * directory; plan and apply check the repository out beside a one-package installation that names the
 * package's directory (a package's directory is named by its key, so a package that is the repository is
 * checked out into a directory of that name).
 */
export function githubWorkflow({ key, path }: PackagePlace): string {
  const checkoutDir = path ? 'repository' : key;
  const packageDir = path ? `repository/${path}` : key;
  const paths = path ? `    paths: ['${path}/**', '${packageWorkflowPath(key)}']\n` : '';
  const defaults = path ? `\ndefaults:\n  run:\n    working-directory: ${path}\n` : '';
  return `# Written by package-sdk init. check and test ${path ? `the package ${path} ` : ''}on every push and pull request; on a tag v*, the
# plan is built against the core and kept as an artifact, and the job apply applies exactly that plan (its
# planHash) once a reviewer of the environment "production" approves it.
# Secrets: CP_TOKEN (the core's token); variables: CP_SERVER (the core's URL). Installation variables
# of the package go to the environment as variables of the same name (package-sdk describe . --env-example).
name: ${key}

on:
  push:
    branches: [main]
    tags: ['v*']
${paths}  pull_request:
${paths}${defaults}
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
${setupSteps()}      - name: check
        run: package-sdk check --format github
      - name: test
        run: package-sdk test

  plan:
    if: startsWith(github.ref, 'refs/tags/v')
    needs: check
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: .
    outputs:
      plan-hash: \${{ steps.plan.outputs.plan-hash }}
    steps:
${setupSteps(checkoutDir)}      - name: installation of this package
        run: |
          printf 'apiVersion: taimen.ai/v1\\nkind: Installation\\nkey: ci\\nspec:\\n  packages:\\n    - {key: ${key}, path: ${packageDir}}\\n' > packages.yaml
      - id: plan
        name: plan
        env:
          CP_TOKEN: \${{ secrets.CP_TOKEN }}
        run: |
          package-sdk plan --install packages.yaml --server "\${{ vars.CP_SERVER }}" --out plan.json
          echo "plan-hash=$(node -e 'console.log(JSON.parse(require("fs").readFileSync("plan.json","utf8")).planHash)')" >> "$GITHUB_OUTPUT"
      - uses: actions/upload-artifact@v4
        with:
          name: plan
          path: |
            plan.json
            packages.yaml

  apply:
    needs: plan
    runs-on: ubuntu-latest
    environment: production
    defaults:
      run:
        working-directory: .
    steps:
${setupSteps(checkoutDir)}      - uses: actions/download-artifact@v4
        with:
          name: plan
      - name: apply the reviewed plan
        env:
          CP_TOKEN: \${{ secrets.CP_TOKEN }}
        run: package-sdk apply --plan plan.json --server "\${{ vars.CP_SERVER }}" --plan-hash "\${{ needs.plan.outputs.plan-hash }}"
`;
}

/** What a repository of packages holds: package keys under packages/, installation files (relative, with /). */
export interface RepositoryLayout {
  packages: string[];
  installations: string[];
}

/**
 * The workflow of a repository of packages: check and test every package on each push; on a tag, one plan per
 * installation (a matrix job), each applied after approval in the environment "production".
 */
export function repositoryWorkflow(layout: RepositoryLayout): string {
  const checkInstallations = layout.installations.map((install) => `      - name: check ${install}\n        run: package-sdk check --install ${install} --format github\n`).join('');
  const header = `# Written by package-sdk workflow from the layout of this repository — run it again when packages or
# installations are added (package-sdk workflow --check fails when this file is stale).
# Packages: ${layout.packages.join(', ') || 'none'}. Installations: ${layout.installations.join(', ') || 'none'}.
# Secrets: CP_TOKEN (the core's token); variables: CP_SERVER (the core's URL) and the installation variables.
name: packages

on:
  push:
    branches: [main]
    tags: ['v*']
  pull_request:

jobs:
  check:
    runs-on: ubuntu-latest
    steps:
${setupSteps()}${layout.packages.length > 0 ? `      - name: check
        run: package-sdk check --format github
      - name: test
        run: package-sdk test
` : ''}${checkInstallations}`;
  if (layout.installations.length === 0) return header;
  const matrix = `        install: [${layout.installations.map((install) => `'${install}'`).join(', ')}]`;
  return `${header}
  plan:
    if: startsWith(github.ref, 'refs/tags/v')
    needs: check
    runs-on: ubuntu-latest
    strategy:
      matrix:
${matrix}
    steps:
${setupSteps()}      - name: plan
        env:
          CP_TOKEN: \${{ secrets.CP_TOKEN }}
        run: package-sdk plan --install "\${{ matrix.install }}" --server "\${{ vars.CP_SERVER }}" --out plan.json
      - uses: actions/upload-artifact@v4
        with:
          name: plan-\${{ strategy.job-index }}
          path: plan.json

  apply:
    needs: plan
    runs-on: ubuntu-latest
    environment: production
    strategy:
      max-parallel: 1
      matrix:
${matrix}
    steps:
${setupSteps()}      - uses: actions/download-artifact@v4
        with:
          name: plan-\${{ strategy.job-index }}
      - name: apply the reviewed plan
        env:
          CP_TOKEN: \${{ secrets.CP_TOKEN }}
        run: |
          hash=$(node -e 'console.log(JSON.parse(require("fs").readFileSync("plan.json","utf8")).planHash)')
          package-sdk apply --plan plan.json --server "\${{ vars.CP_SERVER }}" --plan-hash "$hash"
`;
}
