import { defineConfig } from 'vitest/config';

// `npm run test:e2e`: web host in headless Debian Chromium, real sshd, pywinrm, real kubectl. Needs `npm run build`.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.{ts,tsx}', 'test/interop/**/*.test.{ts,tsx}'],
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
