// Preloaded into a measured process (node --require): as it exits, writes its CPU time (user + system, ms)
// and peak resident memory (MiB) to $BENCH_USAGE_FILE.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const cpu = process.cpuUsage();
  const rss = process.resourceUsage().maxRSS / 1024;
  writeFileSync(process.env.BENCH_USAGE_FILE, JSON.stringify({ cpu: (cpu.user + cpu.system) / 1000, rss }));
});
