// `graph` of the real package measured (the claims example, or fixtures/example), as an author runs it between
// two edits: whole processes, Mermaid on stdout (the lean path; Graphviz's WebAssembly never loads), and an SVG
// for comparison. Budget: under 3x `node -e 0`.
export async function run({ cli, timeProcess, subject, rows }) {
  const baseline = rows.find((row) => row.name === 'node -e 0 (baseline)')?.value ?? timeProcess(['-e', '0'], { expectStatus: [0] });
  const mermaid = timeProcess([cli, 'graph', subject.package.dir], { expectStatus: [0] });
  const svg = timeProcess([cli, 'graph', subject.package.dir, '--format', 'svg'], { expectStatus: [0] });
  return [
    { name: `graph ${subject.label} (Mermaid)`, value: mermaid, unit: 'ms', ratio: mermaid / baseline, budget: '< 3x baseline' },
    { name: `graph ${subject.label} --format svg`, value: svg, unit: 'ms', ratio: svg / baseline },
  ];
}
