// The onnxruntime-node the tests run, from where scripts/install-deps.sh installs it ($RESHAPE1_ORT_DIR,
// outside the source tree). A script that cannot find it says so and exits 3.
'use strict';

const path = require('path');

module.exports = function loadOrt(script) {
  const ortDir = process.env.RESHAPE1_ORT_DIR || '/var/cache/reshape1/onnxruntime-node';
  try {
    return require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    process.stderr.write(`${script}: onnxruntime-node is not installed in ${ortDir}; run scripts/install-deps.sh\n`);
    process.exit(3);
  }
};
