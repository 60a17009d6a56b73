// Preloaded into the benchmark's long-lived servers (`node --expose-gc --import bench/memHook.mjs`):
// on SIGUSR2 it runs a full garbage collection and prints the memory figures on stderr, so the bench
// can read heap kept and RSS without any bench code in the daemon itself.
process.on('SIGUSR2', () => {
  globalThis.gc()
  globalThis.gc()
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
  process.stderr.write(`bench-mem ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}\n`)
})
