import { describe, expect, it } from 'vitest';
import { parseYaml } from '../../src/load/yaml.js';
import { findVariables } from '../../src/model/variables.js';

const document = (text: string) => parseYaml(text, 'p.yaml').document!;

describe('findVariables', () => {
  it('lists every ${NAME} under spec with its pointer and place', () => {
    const uses = findVariables(
      document(
        [
          'apiVersion: taimen.ai/v1',
          'kind: Agent',
          'key: ${NOT_SPEC}',
          'spec:',
          '  url: "${BASE_URL}/api?ws=${WORKSPACE_ID}"',
          '  script: |',
          '    curl ${BASE_URL}',
          '  list: [x, "${A_1}"]',
          '  ${KEY_NOT_SEARCHED}: ${lower} ${1ABC} $NAKED',
          '',
        ].join('\n'),
      ),
    );
    expect(uses.map((u) => [u.name, u.pointer, u.offset, u.span])).toEqual([
      ['BASE_URL', '/spec/url', 0, { line: 5, column: 9, endLine: 5, endColumn: 20 }],
      ['WORKSPACE_ID', '/spec/url', 19, { line: 5, column: 28, endLine: 5, endColumn: 43 }],
      ['BASE_URL', '/spec/script', 5, { line: 7, column: 10, endLine: 7, endColumn: 21 }],
      ['A_1', '/spec/list/1', 0, { line: 8, column: 14, endLine: 8, endColumn: 20 }],
    ]);
  });

  it('searches another root when asked', () => {
    const installation = document('spec:\n  knowledge:\n    - workspace: ${WS}\n');
    expect(findVariables(installation, '/spec/knowledge').map((u) => [u.name, u.pointer])).toEqual([['WS', '/spec/knowledge/0/workspace']]);
    expect(findVariables(installation, '/nothing')).toEqual([]);
  });
});
