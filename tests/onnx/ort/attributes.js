#!/usr/bin/env node
// What ONNX Runtime says when it loads each of a file of single-node models (op_attributes --probes):
//
//   node attributes.js PROBES.bin
//
// Prints one line per model, in order: "ok" when the session is created, else the first line of the
// error, from "Node" or "Unrecognized" on where ONNX Runtime prefixes it with where it was raised.
// tests/onnx/op_attributes_ort.py reads these lines.
'use strict';

const fs = require('fs');

const ort = require('./load')('attributes.js');

async function main() {
  const bytes = fs.readFileSync(process.argv[2]);
  const lines = [];
  for (let at = 0; at < bytes.length;) {
    const size = bytes.readUInt32LE(at);
    const model = bytes.subarray(at + 4, at + 4 + size);
    at += 4 + size;
    try {
      const session = await ort.InferenceSession.create(model, {logSeverityLevel: 4});
      await session.release();
      lines.push('ok');
    } catch (e) {
      lines.push(String(e.message).split('\n')[0]);
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(`attributes.js: ${e.stack}\n`);
  process.exit(2);
});
