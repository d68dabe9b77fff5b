/**
 * The layering of src/ (docs/architecture.md): every folder imports only the folders below it, nothing
 * imports in a circle, no rule imports another rule, and `import()` across folders is for lazy loading in
 * the commands and the composition root (src/cli/) only. `npm test` runs this check (test/architecture.test.ts).
 */
// Bottom to top: a folder may import any folder listed before it, none after it.
const FLOORS = [
  ['json', 'fs'],
  ['model'],
  ['schema'],
  ['cel'],
  ['process'],
  ['sources'],
  ['load'],
  ['contract'],
  ['check'],
  ['lock'],
  ['client'],
  ['plan'],
  ['sandbox'],
  ['bundle'],
  ['server'],
  ['graph'],
  ['report'],
  ['docs'],
  ['author'],
  ['mcp', 'lsp'],
  ['cli'],
  ['commands'],
];

const upward = FLOORS.flatMap((floor, index) => {
  const above = FLOORS.slice(index + 1).flat();
  if (above.length === 0) return [];
  return [{
    name: `no-upward-from-${floor.join('-')}`,
    comment: `${floor.join(', ')} may not import a folder above it (${above.join(', ')})`,
    severity: 'error',
    from: { path: `^src/(${floor.join('|')})/` },
    to: { path: `^src/(${above.join('|')})/` },
  }];
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules of src/ never import each other in a circle.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...upward,
    {
      name: 'no-rule-imports-a-rule',
      comment: 'A rule shares results through context.facts, never by importing another rule.',
      severity: 'error',
      from: { path: '^src/check/rules/(?!index\\.ts$)[^/]+$' },
      to: { path: '^src/check/rules/' },
    },
    {
      name: 'dynamic-import-only-in-commands-and-cli',
      comment:
        'import() of another folder loads lazily where commands are composed (src/commands/, src/cli/) and nowhere ' +
        'else, so it can never hide an upward arrow; a module may still load a heavy neighbour of its own folder lazily.',
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: '^src/(commands|cli)/' },
      to: { dependencyTypes: ['dynamic-import'], path: '^src/', pathNot: '^src/$1/' },
    },
    {
      name: 'every-folder-has-a-floor',
      comment: 'A new folder of src/ gets a floor in .dependency-cruiser.cjs (and in docs/architecture.md).',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${FLOORS.flat().join('|')})/` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
