import { defineConfig } from 'vitest/config';

// The conformance suite (`npm run test:conformance`): only test/conformance/, which reads the corpus from
// PACKAGE_SDK_CORPUS (scripts/conformance.mjs checks that it exists before vitest starts).
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    // No check of a test starts a resident checker of its own accord (a large package's would): the tests of one ask for it.
    env: { PACKAGE_SDK_RESIDENT: 'off' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
