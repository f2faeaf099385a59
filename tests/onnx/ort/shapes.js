#!/usr/bin/env node
// The shapes ONNX Runtime computes: runs MODEL once and prints every output's shape.
//
//   node shapes.js MODEL.onnx SPEC.json [BATCH]
//   node shapes.js --many LIST.json        LIST: [[MODEL, SPEC], ...] at batch 1; one JSON line per model
//
// SPEC as oracle.js reads it; each input at its `shape`, with its batch axis at BATCH (default 1), random
// values of its `type` (float32 unless it says float64, float16, int8...uint64, bool or string) in its `range`, or its
// `value`. Prints one JSON object: {"outputs": {NAME: [dims...]}, "values": {NAME: [...]}} (values only of the
// outputs named `reshape1.shape_of:...`, the shapes of a body's tensors over its iterations), or
// {"error": "..."} when the model does not load or the run throws. tests/onnx/shapes_ort.py compares these
// with the shapes `reshape1 shapes -o` wrote.
'use strict';

const fs = require('fs');

const ort = require('./load')('shapes.js');

const count = (shape) => shape.reduce((a, b) => a * b, 1);

// IEEE half-precision bits of x (truncated; subnormals flushed to 0): ONNX Runtime takes float16 as Uint16Array.
function halfBits(x) {
  const u = new Uint32Array(new Float32Array([x]).buffer)[0];
  const sign = (u >>> 16) & 0x8000;
  const exp = ((u >>> 23) & 0xff) - 112;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7c00;
  return sign | (exp << 10) | ((u >>> 13) & 0x3ff);
}

const INTEGERS = {int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
                  uint32: Uint32Array};

// n random values of TYPE: floats in [lo, hi), integers in [lo, hi], bools half true.
function randomTensor(type, n, lo, hi, random, shape) {
  const real = () => lo + (hi - lo) * random();
  const integer = () => Math.floor(lo + (hi - lo + 1) * random());
  switch (type) {
    case 'float32': return new ort.Tensor('float32', Float32Array.from({length: n}, real), shape);
    case 'float64': return new ort.Tensor('float64', Float64Array.from({length: n}, real), shape);
    case 'float16': return new ort.Tensor('float16', Uint16Array.from({length: n}, () => halfBits(real())), shape);
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from({length: n}, () => BigInt(integer())), shape);
    case 'uint64': return new ort.Tensor('uint64', BigUint64Array.from({length: n}, () => BigInt(integer())), shape);
    case 'bool': return new ort.Tensor('bool', Uint8Array.from({length: n}, () => (random() < 0.5 ? 1 : 0)), shape);
    // Strings of words from a few letters, spaces and commas (what the text ops split and match), up to 8 long.
    case 'string': return new ort.Tensor('string', Array.from({length: n}, () =>
      Array.from({length: Math.floor(random() * 9)}, () => 'ab, c'[Math.floor(random() * 5)]).join('')), shape);
    default:
      if (!INTEGERS[type]) throw new Error(`shapes.js: no random ${type} tensors`);
      return new ort.Tensor(type, INTEGERS[type].from({length: n}, integer), shape);
  }
}

async function shapes(model, spec, batch) {
  let seed = 7;
  const random = () => {  // a fixed sequence: every run feeds the same values
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const feeds = {};
  for (const [name, input] of Object.entries(spec.inputs)) {
    const shape = input.shape.slice();
    if (input.batch_axis !== null && input.batch_axis !== undefined) shape[input.batch_axis] *= batch;
    const n = count(shape);
    if (input.value !== undefined) {
      if (input.type === 'int64') feeds[name] = new ort.Tensor('int64', BigInt64Array.from({length: n}, () => BigInt(input.value)), shape);
      else if (input.type === 'bool') feeds[name] = new ort.Tensor('bool', Uint8Array.from({length: n}, () => (input.value ? 1 : 0)), shape);
      else feeds[name] = new ort.Tensor('float32', Float32Array.from({length: n}, () => input.value), shape);
    } else {
      const [lo, hi] = input.range || [-1, 1];
      feeds[name] = randomTensor(input.type || 'float32', n, lo, hi, random, shape);
    }
  }
  try {
    const session = await ort.InferenceSession.create(model, {logSeverityLevel: 3});
    const got = await session.run(feeds);
    const outputs = {};
    const values = {};  // what a body tensor's exposed Shape holds, at each iteration (onnx_shapes_check.cpp)
    for (const name of session.outputNames) {
      outputs[name] = Array.from(got[name].dims);
      if (name.startsWith('reshape1.shape_of:')) values[name] = Array.from(got[name].data, Number);
    }
    return {outputs, values};
  } catch (e) {
    return {error: String(e.message || e).split('\n')[0]};
  }
}

async function main() {
  if (process.argv[2] === '--many' && process.argv.length === 4) {
    // One process for many small models (the per-op test): Node and ONNX Runtime start once.
    for (const [model, specFile] of JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))) {
      const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
      process.stdout.write(JSON.stringify(await shapes(model, spec, 1)) + '\n');
    }
    return;
  }
  if (process.argv.length < 4 || process.argv.length > 5) {
    process.stderr.write('usage: node shapes.js MODEL.onnx SPEC.json [BATCH] | --many LIST.json\n');
    process.exit(2);
  }
  const [model, specFile] = process.argv.slice(2, 4);
  const batch = process.argv.length === 5 ? Number(process.argv[4]) : 1;
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
  process.stdout.write(JSON.stringify(await shapes(model, spec, batch)) + '\n');
}

main().catch((e) => {
  process.stderr.write(`shapes.js: ${e.stack || e}\n`);
  process.exit(1);
});
