#!/usr/bin/env bash
# The five examples of the Reshape-1 specification, run through `reshape1 infer`.
# Usage: examples/spec_examples.sh [path/to/reshape1]
set -euo pipefail
bin=${1:-reshape1}
run() {
  # Printed as it is typed: the shape and the pattern quoted, as [ ] are glob characters to the shell.
  echo "\$ reshape1 infer '$1' '$2' ${*:3}"
  "$bin" infer "$@"
}
run '[2,5,5,0]' '[0,4]' --special-zero false
run '[2,5,5,24]' '[0,-1,4]' --special-zero true
run '[2,2,3]' '[0,0,1,-1]' --special-zero true
run '[3,1,1]' '[-1,0]' --special-zero true
run '[3,1,1]' '[0,-1]' --special-zero true
