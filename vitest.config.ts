import { defineConfig } from 'vitest/config';

// `npm test`: every self-contained suite. test/conformance/ needs the corpus and runs apart
// (`npm run test:conformance`, vitest.conformance.config.ts).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/conformance/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
