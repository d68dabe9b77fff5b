import { defineConfig } from 'vitest/config';

// `npm test`: every self-contained suite. test/conformance/ needs the corpus and runs apart
// (`npm run test:conformance`, vitest.conformance.config.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/conformance/**', 'node_modules/**'],
    // No check of a test starts a resident checker of its own accord (a large package's would): the tests of one ask for it.
    env: { PACKAGE_SDK_RESIDENT: 'off' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
