import { defineConfig } from 'vitest/config';

// `npm test`: unit + integration; Node only (simulators on loopback, temp SQLite files, DOM via happy-dom).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.{ts,tsx}', 'test/integration/**/*.test.{ts,tsx}'],
    exclude: ['test/e2e/**', 'test/interop/**', 'node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
