#!/usr/bin/env node
// The test oracle: does ONNX Runtime, given B samples stacked along the batch axis, return each sample's
// result as it returns it for that sample alone?
//
//   node oracle.js MODEL.onnx SPEC.json
//   node oracle.js --many LIST.json      LIST: [[MODEL, SPEC], ...]; one JSON line per model, in order
//
// MODEL's batch must already be free (tests/onnx/onnx_free_batch.cpp). SPEC (JSON):
//   {"inputs": {NAME: {"shape": [...], "batch_axis": 0, "range": [lo, hi]}          a random float tensor
//               NAME: {"shape": [...], "batch_axis": 0, "range": [lo, hi], "type": "int32"}   random integers (or int64)
//               NAME: {"shape": [], "batch_axis": null, "value": 16000, "type": "int64"}   the same for all
//               NAME: {"shape": [], "batch_axis": null, "value": false, "type": "bool"}},
//    "outputs": {NAME: {"batch_axis": 1}},      (optional; 0 otherwise)
//    "batches": [2, 4], "seed": 1,
//    "reference": "ORIGINAL.onnx"}           (optional: the samples alone run there, at its own batch 1)
// `shape` is one sample's shape (1 at the batch axis). Prints one JSON object:
//   {"batches": {"2": {"outcome": "correct" | "wrong" | "fails", "detail": "..."}, ...}}
// "fails": a run throws (for one sample alone too); "wrong": an output's shape is not the samples' stacked
// along its batch axis, or a value differs beyond rtol 1e-4 (with atol 1e-5 for values near zero, which
// float summation order alone moves); "correct" otherwise. Warnings ONNX Runtime prints (an output whose
// shape disagrees with the model's declaration) go to stderr with the session's own log.
'use strict';

const fs = require('fs');

const ort = require('./load')('oracle.js');

const RTOL = 1e-4;
const ATOL = 1e-5;

// mulberry32: a small seeded generator, so that every run feeds the same samples.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const count = (shape) => shape.reduce((a, b) => a * b, 1);

function constant(spec) {
  const n = count(spec.shape);
  switch (spec.type || 'float32') {
    case 'int64': return new ort.Tensor('int64', BigInt64Array.from({length: n}, () => BigInt(spec.value)), spec.shape);
    case 'bool': return new ort.Tensor('bool', Uint8Array.from({length: n}, () => (spec.value ? 1 : 0)), spec.shape);
    default: return new ort.Tensor('float32', Float32Array.from({length: n}, () => spec.value), spec.shape);
  }
}

// The samples stacked along `axis`: the row-major data of each, interleaved block by block. (A tensor of
// strings comes as a plain Array: copied element by element.)
function stack(datas, shape, axis) {
  const outer = count(shape.slice(0, axis));
  const inner = count(shape.slice(axis));  // shape[axis] is one sample's extent there
  const out = new datas[0].constructor(outer * inner * datas.length);
  for (let o = 0; o < outer; ++o)
    for (let s = 0; s < datas.length; ++s)
      for (let k = 0; k < inner; ++k) out[(o * datas.length + s) * inner + k] = datas[s][o * inner + k];
  return out;
}

function stackedShape(shape, axis, b) {
  const s = shape.slice();
  s[axis] *= b;
  return s;
}

function compare(name, alone, together, axis, b) {
  const want = stackedShape(alone[0].dims.slice(), axis, b);
  const got = Array.from(together.dims);
  if (want.length !== got.length || want.some((d, i) => d !== got[i]))
    return `output '${name}' is [${got}], not the samples' [${alone[0].dims}] stacked: [${want}]`;
  const expected = stack(alone.map((t) => t.data), Array.from(alone[0].dims), axis);
  for (let i = 0; i < expected.length; ++i) {
    if (typeof expected[i] === 'string') {
      if (expected[i] !== together.data[i])
        return `output '${name}' element ${i}: '${together.data[i]}' stacked, '${expected[i]}' alone`;
      continue;
    }
    const x = Number(expected[i]);
    const y = Number(together.data[i]);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    // Equal, or both finite and within the tolerance: NaN on one side only, or an infinity the other side
    // does not have, is a difference (a comparison with NaN is false, so a test for "too far" passed them).
    const same = x === y || (Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= ATOL + RTOL * Math.abs(x));
    if (!same)
      return `output '${name}' element ${i}: ${y} stacked, ${x} alone`;
  }
  return null;
}

async function main() {
  if (process.argv.length !== 4) {
    process.stderr.write('usage: node oracle.js MODEL.onnx SPEC.json | --many LIST.json\n');
    process.exit(2);
  }
  if (process.argv[2] === '--many') {
    // One process for many small models (the differential test): Node and ONNX Runtime start once.
    for (const [model, specFile] of JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))) {
      const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
      process.stdout.write(JSON.stringify(await judge(model, spec)) + '\n');
    }
    return;
  }
  const [model, specFile] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
  process.stdout.write(JSON.stringify(await judge(model, spec)) + '\n');
}

async function judge(model, spec) {
  const result = {batches: {}};
  let session;
  try {
    session = await ort.InferenceSession.create(model, {logSeverityLevel: 2});
  } catch (e) {  // a model ONNX Runtime refuses to load fails at every batch
    for (const b of spec.batches || [2, 4])
      result.batches[String(b)] = {outcome: 'fails', detail: `loading: ${String(e.message || e).split('\n')[0]}`};
    return result;
  }
  // A fixed model is held to the original: each sample alone runs in the original model.
  const alone_session = spec.reference ? await ort.InferenceSession.create(spec.reference, {logSeverityLevel: 3})
                                       : session;
  const random = generator(spec.seed || 1);
  for (const b of spec.batches || [2, 4]) {
    const samples = [];  // b samples, alone and stacked
    for (let s = 0; s < b; ++s) {
      const feeds = {};
      for (const [name, input] of Object.entries(spec.inputs)) {
        if (input.batch_axis === null || input.batch_axis === undefined) continue;
        const [lo, hi] = input.range || [-1, 1];
        const n = count(input.shape);
        // Integers in [lo, hi] for an integer input (token ids, lengths), else reals in [lo, hi).
        const integer = () => Math.floor(lo + (hi - lo + 1) * random());
        if (input.type === 'int32') feeds[name] = Int32Array.from({length: n}, integer);
        else if (input.type === 'int64') feeds[name] = BigInt64Array.from({length: n}, () => BigInt(integer()));
        else feeds[name] = Float32Array.from({length: n}, () => lo + (hi - lo) * random());
      }
      samples.push(feeds);
    }
    const feedsFor = (list) => {
      const feeds = {};
      for (const [name, input] of Object.entries(spec.inputs)) {
        if (input.batch_axis === null || input.batch_axis === undefined) {
          feeds[name] = constant(input);
        } else {
          const data = stack(list.map((f) => f[name]), input.shape, input.batch_axis);
          feeds[name] = new ort.Tensor(input.type || 'float32', data, stackedShape(input.shape, input.batch_axis, list.length));
        }
      }
      return feeds;
    };
    let outcome = 'correct';
    let detail = '';
    try {
      const alone = [];
      for (const s of samples) alone.push(await alone_session.run(feedsFor([s])));
      let together;
      try {
        together = await session.run(feedsFor(samples));
      } catch (e) {
        outcome = 'fails';
        detail = String(e.message || e).split('\n')[0];
      }
      if (together) {
        for (const name of session.outputNames) {
          const axis = (spec.outputs && spec.outputs[name] && spec.outputs[name].batch_axis) || 0;
          const wrong = compare(name, alone.map((r) => r[name]), together[name], axis, b);
          if (wrong) {
            outcome = 'wrong';
            detail = wrong;
            break;
          }
        }
      }
    } catch (e) {
      outcome = 'fails';
      detail = `one sample alone: ${String(e.message || e).split('\n')[0]}`;
    }
    result.batches[String(b)] = {outcome, detail};
  }
  return result;
}

main().catch((e) => {
  process.stderr.write(`oracle.js: ${e.stack || e}\n`);
  process.exit(1);
});
