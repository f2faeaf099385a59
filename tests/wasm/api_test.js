// The WebAssembly module's JS API against the native tool, in Node.
//   node api_test.js WASM_DIR NATIVE_CLI SHARED_DIR
// For every shared ONNX model and five shared IR models: `check --batch 4`, `shapes` and `fix` (the batch)
// print the same JSON through the module as through the native tool (each run in a directory of its own
// that holds the model under its own name, so that the paths printed are the same), and the fixed files
// the module writes are byte for byte the tool's. Then the refusals: a malformed file, a 0-byte file, an IR
// without its .bin, an option the tool refuses, a model over the API's limit; and a module that keeps
// answering the same after each of them.
'use strict';
const assert = require('assert');
const child = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const [wasmDir, nativeCli, sharedDir] = process.argv.slice(2).map((p) => p && path.resolve(p));
if (!wasmDir || !nativeCli || !sharedDir) {
  console.error('usage: node api_test.js WASM_DIR NATIVE_CLI SHARED_DIR');
  process.exit(2);
}
if (!fs.existsSync(nativeCli)) {
  console.error(`api_test: the native tool ${nativeCli} is not built (the ci workflow builds it first)`);
  process.exit(2);
}
const Reshape1 = require(path.resolve(wasmDir, 'reshape1.js'));

const IR_MODELS = ['keras-mnist-cnn-mo2021.4', 'lstm-gesture-tf2onnx-ir11', 'omz-face-detection-0200',
                   'omz-single-image-super-resolution-1033-fp16', 'yolo11n-int8-ov2025.2'];

function models() {
  const list = [];
  const onnxDir = path.join(sharedDir, 'onnx-models');
  for (const d of fs.readdirSync(onnxDir).sort()) {
    const dir = path.join(onnxDir, d);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.onnx'))) list.push({model: path.join(dir, f)});
  }
  for (const d of IR_MODELS) {
    const dir = path.join(sharedDir, 'ir-models', d);
    const xml = fs.readdirSync(dir).find((f) => f.endsWith('.xml'));
    list.push({model: path.join(dir, xml), bin: path.join(dir, xml.replace(/\.xml$/, '.bin'))});
  }
  return list;
}

/// The native tool in a fresh directory holding links to the model (and .bin) under their own names.
function native(args, files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reshape1-wasm-test-'));
  try {
    for (const f of files) fs.symlinkSync(f, path.join(dir, path.basename(f)));
    fs.mkdirSync(path.join(dir, 'out'));
    const r = child.spawnSync(nativeCli, args, {cwd: dir, maxBuffer: 1 << 28});
    const written = {};
    for (const f of fs.readdirSync(path.join(dir, 'out'))) written[f] = fs.readFileSync(path.join(dir, 'out', f));
    return {exitCode: r.status, stdout: r.stdout.toString(), files: written};
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

function given(m) {
  const g = {model: {name: path.basename(m.model), bytes: fs.readFileSync(m.model)}};
  if (m.bin) g.bin = {name: path.basename(m.bin), bytes: fs.readFileSync(m.bin)};
  return g;
}

/// a and b equal, or an error naming the first line where they differ.
function sameText(a, b, what) {
  if (a === b) return;
  const x = a.split('\n'), y = b.split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) ++i;
  throw new Error(`${what} differ at line ${i + 1}:\n  module: ${x[i]}\n  native: ${y[i]}`);
}

/// Protobuf's wire format, enough to write a small ONNX model here.
function varint(v) {
  let n = BigInt(v);
  const out = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) b |= 0x80;
    out.push(b);
  } while (n > 0n);
  return out;
}
const field = (number, bytes) => [...varint((number << 3) | 2), ...varint(bytes.length), ...bytes];
const int = (number, v) => [...varint(number << 3), ...varint(v)];
const str = (number, s) => field(number, [...Buffer.from(s)]);
const int64Scalar = (name, v) => field(5, [...int(2, 7), ...field(7, varint(v)), ...str(8, name)]);
const node = (op, inputs, output) => field(1, [...inputs.flatMap((i) => str(1, i)), ...str(2, output), ...str(3, op), ...str(4, op)]);
const floatInput = (number, name, dims) => field(number, [...str(1, name), ...field(2, field(1, [...int(1, 1),
  ...(dims ? field(2, dims.flatMap((d) => field(1, int(1, d)))) : [])]))]);

/// Reshape(x[1,1], Range(0, 2^40, 1)): a pattern whose length is past 32 bits.
function longPatternModel() {
  const graph = [...node('Range', ['start', 'limit', 'delta'], 'r'), ...node('Reshape', ['x', 'r'], 'y'),
                 ...str(2, 'g'), ...int64Scalar('start', 0), ...int64Scalar('limit', 2n ** 40n),
                 ...int64Scalar('delta', 1), ...floatInput(11, 'x', [1, 1]), ...floatInput(12, 'y', null)];
  return Uint8Array.from([...int(1, 8), ...field(8, int(2, 13)), ...field(7, graph)]);
}

let failures = 0;
function check(what, fn) {
  try {
    fn();
    console.log(`ok   ${what}`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${what}\n     ${String(e.message).split('\n').join('\n     ')}`);
  }
}

function fixedName(model) {
  const dot = model.lastIndexOf('.');
  return `${model.slice(0, dot)}.fixed${model.slice(dot)}`;
}

(async () => {
  const r = await Reshape1.load();
  for (const m of models()) {
    const name = path.basename(m.model);
    const files = m.bin ? [m.model, m.bin] : [m.model];
    const model = given(m);
    const binArgs = m.bin ? ['--bin', path.basename(m.bin)] : [];
    check(`${name}: check --batch 4`, () => {
      const w = r.check(model, {batch: 4});
      const n = native(['check', name, '--batch', '4', ...binArgs, '--json'], files);
      sameText(w.stdout, n.stdout, 'the JSON documents');
      assert.strictEqual(w.exitCode, n.exitCode);
      assert.ok(w.report.summary, 'a report with a summary');
    });
    check(`${name}: shapes`, () => {
      const w = r.shapes(model);
      const n = native(['shapes', name, ...binArgs, '--json'], files);
      sameText(w.stdout, n.stdout, 'the JSON documents');
      assert.strictEqual(w.exitCode, n.exitCode);
    });
    check(`${name}: fix`, () => {
      const w = r.fix(model);
      const n = native(['fix', name, ...binArgs, '-o', 'out/' + fixedName(name), '--json'], files);
      sameText(w.stdout, n.stdout, 'the JSON documents');
      assert.strictEqual(w.exitCode, n.exitCode);
      assert.deepStrictEqual(Object.keys(w.files).sort(), Object.keys(n.files).sort());
      for (const f of Object.keys(n.files)) assert.ok(Buffer.from(w.files[f]).equals(n.files[f]), `${f}: the same bytes`);
    });
  }

  const onnx = given(models()[0]);
  const answer = r.check(onnx, {batch: 4}).stdout;
  check('a malformed file: the tool\'s message, exit 2', () => {
    const w = r.check({model: {name: 'broken.onnx', bytes: onnx.model.bytes.subarray(0, 1000)}}, {batch: 4});
    assert.strictEqual(w.exitCode, 2);
    assert.match(w.report.error.message, /^broken\.onnx: /);
  });
  check('a 0-byte file: the tool\'s message, exit 2', () => {
    const w = r.check({model: {name: 'empty.onnx', bytes: new Uint8Array(0)}});
    assert.strictEqual(w.exitCode, 2);
    assert.match(w.report.error.message, /empty\.onnx/);
  });
  check('an IR without its .bin: the tool asks for it', () => {
    const ir = models().find((m) => m.bin);
    const w = r.check({model: {name: path.basename(ir.model), bytes: fs.readFileSync(ir.model)}}, {batch: 4});
    assert.strictEqual(w.exitCode, 2);
    assert.match(w.report.error.message, /\.bin/);
  });
  check('an option the tool refuses: its message', () => {
    const w = r.check(onnx, {batch: 'many'});
    const n = native(['check', path.basename(models()[0].model), '--batch', 'many', '--json'], [models()[0].model]);
    assert.strictEqual(w.exitCode, 2);
    sameText(w.stdout, n.stdout, 'the JSON documents');
  });
  check('a model over the limit: refused before it is copied, with the limit named', () => {
    const w = r.check({model: {name: 'big.onnx', bytes: new Uint8Array(Reshape1.MAX_INPUT_BYTES + 1)}});
    assert.strictEqual(w.exitCode, 2);
    assert.strictEqual(w.report.error.code, 'too_large');
    assert.match(w.report.error.message, /1 GiB/);
  });
  check('a file named like an option is read as a file', () => {
    const w = r.check({model: {name: '-m.onnx', bytes: onnx.model.bytes}}, {batch: 4});
    assert.strictEqual(w.report.model, './-m.onnx');
    assert.ok(w.report.summary, w.stdout);
  });
  check('a name the API cannot use: refused by the API, naming it', () => {
    assert.throws(() => r.check({model: {name: 'out', bytes: onnx.model.bytes}}), /'out' cannot name a file/);
    assert.throws(() => r.check({model: {name: 'dir/', bytes: onnx.model.bytes}}), /'dir\/' cannot name a file/);
  });
  check('a length past 32 bits is printed as the native tool prints it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reshape1-wasm-long-'));
    try {
      const file = path.join(dir, 'long.onnx');
      fs.writeFileSync(file, longPatternModel());
      for (const args of [[], ['--batch', '4']]) {
        const w = r.check({model: {name: 'long.onnx', bytes: fs.readFileSync(file)}}, args.length ? {batch: 4} : {});
        const n = native(['check', 'long.onnx', ...args, '--json'], [file]);
        sameText(w.stdout, n.stdout, 'the JSON documents');
        assert.match(w.stdout, /1099511627776/);
      }
    } finally {
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });
  check('the API refuses what it cannot pass on, naming it', () => {
    const b = onnx.model.bytes;
    assert.throws(() => r.check({model: {name: 'm.xml', bytes: b}, bin: {name: 'm.xml', bytes: b}}), /both named 'm.xml'/);
    assert.throws(() => r.check(onnx, {'batch=4': true}), /not an option's name/);
    assert.throws(() => r.check(onnx, {'--batch': 4}), /not an option's name/);
    assert.throws(() => r.check(onnx, ['--batch', '4']), /options are an object/);
    assert.throws(() => r.check({model: {name: 'm.onnx', bytes: new DataView(b.buffer)}}), /Uint8Array or an ArrayBuffer/);
    assert.throws(() => r.check({model: {bytes: b}}), /needs a name/);
    assert.throws(() => r.check({model: {name: 'a\0b', bytes: b}}), /needs a name/);
  });
  check('an ArrayBuffer is taken as the model\'s bytes', () => {
    const copy = onnx.model.bytes.slice();
    const w = r.check({model: {name: 'm.onnx', bytes: copy.buffer}}, {batch: 4});
    assert.ok(w.report.summary, w.stdout);
  });
  check('fix names its output by the format, whatever the model\'s name ends with', () => {
    const w = r.fix({model: {name: 'MODEL', bytes: onnx.model.bytes}});
    assert.deepStrictEqual(Object.keys(w.files), w.exitCode === 2 ? [] : ['MODEL.fixed.onnx'], w.stdout);
    assert.notStrictEqual(w.exitCode, 2, w.stdout);
  });
  check('a command that prints no JSON (--help): report null, its text in stdout', () => {
    const w = r.check(onnx, {help: true});
    assert.strictEqual(w.report, null);
    assert.match(w.stdout, /Usage: reshape1 check/);
  });
  check('what a command writes outside its directory is removed after it', () => {
    const w = r.run(['fix', 'm.onnx', '-o', '/tmp/kept.onnx', '--json'], {'m.onnx': onnx.model.bytes});
    assert.notStrictEqual(w.exitCode, 2, w.stdout);
    const again = r.run(['check', '/tmp/kept.onnx', '--json']);
    assert.strictEqual(again.exitCode, 2, again.stdout);
    assert.match(again.report === undefined ? JSON.parse(again.stdout).error.message : '', /kept\.onnx/);
  });
  check('the module answers the same after every refusal, and leaves no file behind', () => {
    assert.strictEqual(r.check(onnx, {batch: 4}).stdout, answer);
    assert.deepStrictEqual(r.core.FS.readdir('/').includes('job'), false);
  });

  console.log(failures === 0 ? 'all passed' : `${failures} failed`);
  process.exit(failures === 0 ? 0 : 1);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
