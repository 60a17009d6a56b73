import { defineConfig } from 'vitest/config'

// Unit, integration and end-to-end tests share one run. Integration and e2e tests start real
// processes (the daemon, Chromium), so files run two at a time on the 2-core machines we target.
export default defineConfig({
  resolve: { alias: { 'bridge/sdk': new URL('./src/sdk/index.ts', import.meta.url).pathname } },
  test: {
    include: ['test/**/*.test.ts', 'machines/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
})
