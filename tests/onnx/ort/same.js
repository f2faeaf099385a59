#!/usr/bin/env node
// The oracle of the size differential: does a model exported at one size, run at another, compute what
// the same program exported at that other size computes?
//
//   node same.js --many LIST.json      LIST: [[RUN.onnx, TRUTH.onnx, SPEC.json], ...]; one JSON line each
//
// RUN is the model exported at size A with its inputs' varying dimensions freed (dim_param) and no declared
// output shape; TRUTH the program exported at size B. SPEC: {"inputs": {NAME: SHAPE}, "seed": 1}, the
// shapes at B (an input may instead be {"shape": SHAPE, "type": "int64" | "float32", "value": V}, every
// element V). Both run on the same random inputs (uniform in [-1, 1]). Prints per pair:
//   {"outcome": "same" | "differ" | "fails" | "truth_fails", "detail": "..."}
// "fails": RUN throws at B; "differ": an output's shape or a value differs beyond rtol 1e-4 (atol 1e-5);
// "truth_fails": TRUTH itself does not run (the pair says nothing). With TRUTH null, RUN only runs:
// "runs" (its outputs' shapes in the detail) or "fails".
'use strict';

const fs = require('fs');

const ort = require('./load')('same.js');

const RTOL = 1e-4;
const ATOL = 1e-5;

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

async function run(model, feeds) {
  const session = await ort.InferenceSession.create(model, {logSeverityLevel: 3});
  return session.run(feeds);
}

function differs(name, a, b) {
  const da = Array.from(a.dims), db = Array.from(b.dims);
  if (da.length !== db.length || da.some((d, i) => d !== db[i])) return `output '${name}' is [${da}], not [${db}]`;
  for (let i = 0; i < a.data.length; ++i) {
    const x = Number(b.data[i]), y = Number(a.data[i]);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    const same = x === y || (Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) <= ATOL + RTOL * Math.abs(x));
    if (!same) return `output '${name}' element ${i}: ${y}, not ${x}`;
  }
  return null;
}

async function judge(runModel, truthModel, spec) {
  const random = generator(spec.seed || 1);
  const feeds = {};
  for (const [name, input] of Object.entries(spec.inputs)) {
    if (Array.isArray(input)) {
      feeds[name] = new ort.Tensor('float32', Float32Array.from({length: count(input)}, () => -1 + 2 * random()), input);
    } else if (input.type === 'int64') {
      feeds[name] = new ort.Tensor('int64', BigInt64Array.from({length: count(input.shape)}, () => BigInt(input.value)), input.shape);
    } else {
      feeds[name] = new ort.Tensor('float32', Float32Array.from({length: count(input.shape)}, () => input.value), input.shape);
    }
  }
  if (truthModel === null) {
    let got;
    try {
      got = await run(runModel, feeds);
    } catch (e) {
      return {outcome: 'fails', detail: String(e.message || e).split('\n')[0]};
    }
    return {outcome: 'runs', detail: Object.entries(got).map(([name, t]) => `${name} [${Array.from(t.dims)}]`).join(', ')};
  }
  let truth;
  try {
    truth = await run(truthModel, feeds);
  } catch (e) {
    return {outcome: 'truth_fails', detail: String(e.message || e).split('\n')[0]};
  }
  let got;
  try {
    got = await run(runModel, feeds);
  } catch (e) {
    return {outcome: 'fails', detail: String(e.message || e).split('\n')[0]};
  }
  for (const name of Object.keys(truth)) {
    if (!(name in got)) return {outcome: 'differ', detail: `no output '${name}'`};
    const d = differs(name, got[name], truth[name]);
    if (d) return {outcome: 'differ', detail: d};
  }
  return {outcome: 'same', detail: ''};
}

async function main() {
  if (process.argv.length !== 4 || process.argv[2] !== '--many') {
    process.stderr.write('usage: node same.js --many LIST.json\n');
    process.exit(2);
  }
  for (const [runModel, truthModel, specFile] of JSON.parse(fs.readFileSync(process.argv[3], 'utf8'))) {
    const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
    process.stdout.write(JSON.stringify(await judge(runModel, truthModel, spec)) + '\n');
  }
}

main().catch((e) => {
  process.stderr.write(`same.js: ${e.stack || e}\n`);
  process.exit(3);
});
