// The WebAssembly module's size and speed against the native tool (issue 50's targets: the .wasm at most
// 4 MB after gzip; `check --batch 4` of the shared model with the most layers at most 3x the native tool).
//   node bench/wasm_bench.js WASM_DIR NATIVE_CLI SHARED_DIR [--runs N]
// Both sides do the same work per run: the module reads the files from its memory file system, the tool
// from the page cache; the module's one-time load (compiling the .wasm) is timed apart. This runs the module
// in Node.js; a browser's engine is the same V8.
'use strict';
const child = require('child_process');
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 7;
const [wasmDir, nativeCli, sharedDir] = args.map((p) => path.resolve(p));
if (!wasmDir || !nativeCli || !sharedDir) {
  console.error('usage: node bench/wasm_bench.js WASM_DIR NATIVE_CLI SHARED_DIR [--runs N]');
  process.exit(2);
}

/// The shared IR model with the most layers.
function largestModel() {
  let best = null;
  const root = path.join(sharedDir, 'ir-models');
  for (const d of fs.readdirSync(root)) {
    const dir = path.join(root, d);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.xml'))) {
      const xml = path.join(dir, f);
      const layers = (fs.readFileSync(xml, 'utf8').match(/<layer /g) || []).length;
      if (!best || layers > best.layers) best = {xml, bin: xml.replace(/\.xml$/, '.bin'), layers};
    }
  }
  return best;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function ms(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

(async () => {
  const wasm = fs.readFileSync(path.join(wasmDir, 'reshape1-core.wasm'));
  const gz = zlib.gzipSync(wasm, {level: 9}).length;
  console.log(`reshape1-core.wasm: ${(wasm.length / 1e6).toFixed(2)} MB, ${(gz / 1e6).toFixed(2)} MB after gzip -9 ` +
              `(target <= 4 MB): ${gz <= 4e6 ? 'met' : 'MISSED'}`);

  let t = process.hrtime.bigint();
  const reshape1 = await require(path.join(wasmDir, 'reshape1.js')).load();
  console.log(`module load (compile and instantiate): ${ms(t).toFixed(0)} ms`);

  const m = largestModel();
  const files = {model: {name: path.basename(m.xml), bytes: fs.readFileSync(m.xml)},
                 bin: {name: path.basename(m.bin), bytes: fs.readFileSync(m.bin)}};
  const module = [], native = [];
  for (let i = 0; i < runs; ++i) {  // alternated, so that a noisy moment costs both sides alike
    t = process.hrtime.bigint();
    const r = reshape1.check(files, {batch: 4, quiet: true});
    module.push(ms(t));
    if (r.report === null || r.report.error) throw new Error(`the module failed: ${r.stdout}${r.stderr}`);
    t = process.hrtime.bigint();
    const n = child.spawnSync(nativeCli, ['check', m.xml, '--bin', m.bin, '--batch', '4', '--quiet', '--json']);
    native.push(ms(t));
    if (n.status === null || n.status === 2 || n.status === 3) throw new Error(`the tool failed: ${n.stderr}`);
  }
  const a = median(module), b = median(native);
  console.log(`check --batch 4 of ${path.basename(m.xml)} (${m.layers} layers), median of ${runs}: ` +
              `module ${a.toFixed(0)} ms, native tool ${b.toFixed(0)} ms (a process each), ${(a / b).toFixed(2)}x ` +
              `(target <= 3x): ${a <= 3 * b ? 'met' : 'MISSED'}`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
