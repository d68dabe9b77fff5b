/**
 * The range grammar of `requires` and `engines` (compat-package-sdk-check.md §2.7, compat-package-sdk-install.md
 * §4.4): a truth table of range × version, and the forms the reference refuses.
 */
import { describe, expect, it } from 'vitest';
import { compareVersions, parseRange, parseVersion, versionSatisfies } from '../../src/model/semver-range.js';

const TRUTH_TABLE: readonly [range: string, version: string, satisfied: boolean][] = [
  ['>=0.9,<0.11', '0.9.0', true],
  ['>=0.9,<0.11', '0.10.2', true],
  ['>=0.9,<0.11', '0.11.0', false],
  ['>=0.9,<0.11', '0.12.0', false],
  [' >=0.9 , <0.11 ', '0.8.9', false],
  ['1.2', '1.2.7', true], // a partial version is a prefix
  ['1.2', '1.3.0', false],
  ['>1.2', '1.2.9', false], // >1.2 is >=1.3.0
  ['>1.2', '1.3.0', true],
  ['<=1.2', '1.2.9', true], // <=1.2 is <1.3.0
  ['<1.2', '1.2.0', false], // <1.2 is <1.2.0
  ['^1.2.3', '1.9.0', true],
  ['^1.2.3', '2.0.0', false],
  ['^0.2.3', '0.3.0', false], // ^ bumps the first non-zero part
  ['^0.0.3', '0.0.4', false],
  ['^0.2', '0.2.9', true],
  ['~1.2.3', '1.2.9', true],
  ['~1.2.3', '1.3.0', false],
  ['~1', '1.9.9', true], // ~1 is <2.0.0
  ['*', '0.0.1', true],
  ['>=1.0.0', '1.1.0-beta', true], // pre-releases are not excluded (unlike npm)
  ['<2.0.0', '2.0.0-rc.1', true], // … and compare by SemVer precedence
  ['=1.2.3', '1.2.3+build.5', true], // build metadata of a version plays no part
  ['>=1.0.0-alpha.2', '1.0.0-alpha.10', true], // numeric identifiers compare as numbers
  ['>=1.0.0-beta', '1.0.0-alpha', false],
  ['1', '1.9.0', true],
];

const REFUSED = ['<>1', '=>1', '~>0.9', '^~1', '!1', '!=1.0', '==1', '1.0.0+build', '', '  ', '1.2.3.4', '>= 1', '1,,2', '1,', 'v1', 'x'];

describe('SemVer ranges', () => {
  it.each(TRUTH_TABLE)('%s with %s → %s', (range, version, satisfied) => {
    expect(versionSatisfies(version, range)).toBe(satisfied);
  });

  it('has the 26 rows of the reference table', () => {
    expect(TRUTH_TABLE).toHaveLength(26);
  });

  it.each(REFUSED)('refuses %j', (range) => {
    const parsed = parseRange(range);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0);
  });

  it('reads partial versions and pre-releases', () => {
    expect(parseVersion('1.2')).toEqual({ major: 1, minor: 2, patch: 0, prerelease: [] });
    expect(parseVersion('1.2.3-rc.1+b')).toEqual({ major: 1, minor: 2, patch: 3, prerelease: ['rc', 1] });
    expect(parseVersion('1.2.x')).toBeUndefined();
  });

  it('orders releases after their pre-releases', () => {
    const order = ['1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0'];
    const versions = order.map((text) => parseVersion(text)!);
    for (let i = 1; i < versions.length; i++) expect(compareVersions(versions[i - 1]!, versions[i]!)).toBeLessThan(0);
  });
});
