#!/usr/bin/env bash
# How the node-* seeds in corpus/ were made (run once; the outputs are
# committed so fuzzing is reproducible). The hand-made seeds come from the
# small node script in the commit that added them.
set -euo pipefail
cd "$(dirname "$0")"
node --cpu-prof --cpu-prof-interval 500 --cpu-prof-dir=corpus \
  --cpu-prof-name=node-cpu-prof.cpuprofile make-seeds-workload.js
node --heap-prof --heap-prof-interval 8192 --heap-prof-dir=corpus \
  --heap-prof-name=node-heap-prof.heapprofile make-seeds-workload.js
node --heap-prof --heap-prof-interval 65536 --heap-prof-dir=corpus \
  --heap-prof-name=node-heap-prof-no-samples.heapprofile make-seeds-workload.js
