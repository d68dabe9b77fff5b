/**
 * schema/v1 against the reference page of its authors: `docs schema` regenerated from it and compared
 * definition by definition and field by field (type, required, description) with package-schema-reference,
 * and the reference's own conformance tool finding every definition, required set and enum.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCHEMA_DIR } from '../../src/author/hints.js';
import { schemaReference } from '../../src/docs/schema-reference.js';
import { TOOLS } from './corpus.js';
import { compareDefinitions, referenceDefinitions, SCHEMA_REFERENCE, type Difference } from './static-support.js';

/**
 * Where schema/v1 itself says something else than the reference page, so its reference cannot match.
 * Each entry is `definition | what`; an entry that no longer differs fails the test, so the list shrinks
 * as the schema is brought in line.
 */
const SCHEMA_DIFFERS: Record<string, string> = {
  'settingsField1 | properties.type': 'the schema types nested settings fields (map → settingsField2); the page says any',
  'settingsField2 | properties.type': 'same, one level down',
  'settingsScalar | value': 'the schema has no integer in the type list (number covers it)',
  'projectTemplateSpec.governanceSchema | maxAutonomyLevel.type': 'the schema gives integer | string; the page says any',
  'agentSpec | placement.type': 'the page names the object branch agentSpec.placement without a branch number',
  'agentSpec.placement | missing': 'same',
  'agentSpec.placement.resources | missing': 'same',
  'agentWorkingCopies/catalog | superproject.type': 'the schema references repositoryKey; the page says any',
  'agentWorkingCopies/catalogEntry | directory.type': 'the schema references workingCopyPath; the page says any',
  'agentWorkingCopies/single | directory.type': 'same',
  'memoryWhere[] | value.type': 'the schema writes the choice as a type list, without the cel reference of its string branch',
  'knowledge-pack/kind | naturalKey.type': 'the schema writes the choice as a type list',
  'jsonSchema | value': 'the schema declares the $ref field that the page leaves out',
  'plan/section | value': 'the schema lists the sections in another order (knowledge before notification-rules)',
  'plan/section (3) | kind.type': 'same',
  'plan/section (3) | field changes': 'same',
  'plan/section (4) | kind.type': 'same',
  'plan/section (4) | field register': 'same',
  'plan/section (4) | field enable': 'same',
  'plan/section (4).enable[] | missing': 'same',
  'view | description': 'the schema root also validates the whole file and says so',
  'view/format | value': 'the schema makes the format an enum; the page shows an empty definition',
};

const keyOf = (difference: Difference): string => `${difference.definition} | ${difference.what}`;
/** A description the schema adds for editors' hover text where the page has none. */
const isAddedDescription = (difference: Difference): boolean => difference.what.endsWith('description') && difference.expected === '';

describe('docs schema against the reference page', async () => {
  const sections = await schemaReference(SCHEMA_DIR);
  const generated = sections.flatMap((section) => section.definitions);
  const reference = referenceDefinitions();
  const { differences, fields } = compareDefinitions(reference, generated);

  it('has every definition and field of the reference, with the same type, required flag and description', () => {
    const added = differences.filter(isAddedDescription);
    const other = differences.filter((difference) => !isAddedDescription(difference));
    const missing = reference.filter((definition) => !generated.some((mine) => mine.name === definition.name));
    const matching = reference.length - new Set(other.map((difference) => difference.definition)).size;
    console.log(
      `schema reference: ${reference.length} definitions and ${fields} fields in the reference; ${matching} definitions match exactly, ` +
        `${reference.length - missing.length} present; ${added.length} descriptions added by schema/v1 where the reference has none; ` +
        `${other.length} known differences of schema/v1 (${Object.keys(SCHEMA_DIFFERS).length} listed)`,
    );
    expect(other.map(keyOf).sort()).toEqual(Object.keys(SCHEMA_DIFFERS).sort());
  });

  it('keeps the reference sections in the order of the page', () => {
    const order = [...new Set(reference.map((definition) => definition.section))];
    expect(sections.map((section) => section.title)).toEqual(order);
  });
});

describe('schema/v1 against the reference field tables', () => {
  it('matches every definition, required set and enum', () => {
    const output = execFileSync('python3', [join(TOOLS, 'schema-conformance'), SCHEMA_REFERENCE, SCHEMA_DIR, '--verbose'], { encoding: 'utf8' });
    const lines = output.trim().split('\n');
    const [, matched, total, required, enums, enumTotal] =
      /(\d+)\/(\d+) definitions matched, (\d+)\/\d+ required sets equal, (\d+)\/(\d+) enums equal/.exec(lines.at(-1)!) ?? [];
    expect(lines.slice(0, -1)).toEqual([]); // --verbose prints every miss
    expect(Number(total)).toBeGreaterThan(200);
    expect([matched, required, enums]).toEqual([total, total, enumTotal]);
  });
});
