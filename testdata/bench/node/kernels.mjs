// Times the goja kernels of testdata/bench/kernels in Node, as
// BenchmarkGojaKernels (runtime) times them in goja: setup() once, then
// run(data) repeatedly; prints the median time of a run per kernel.
//
//   node testdata/bench/node/kernels.mjs [runs]
import { readdirSync, readFileSync } from "node:fs";

const dir = new URL("../kernels/", import.meta.url);
const runs = Number(process.argv[2] ?? 10);
for (const file of readdirSync(dir).filter((f) => f.endsWith(".js")).sort()) {
  const { setup, run } = new Function(readFileSync(new URL(file, dir), "utf8") + "\nreturn { setup, run };")();
  const data = setup();
  run(data); // warm-up
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    run(data);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`${file.replace(/\.js$/, "").padEnd(16)} ${times[Math.floor(runs / 2)].toFixed(2)} ms`);
}
