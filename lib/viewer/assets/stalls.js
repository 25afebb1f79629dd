// Event-loop-blocking spans for the time-order view (time.js): runs of
// consecutive samples none of which is (idle), longer than a threshold. A
// run may hold (garbage collector) and (program) samples: the loop did not
// turn while they ran, so a stall that GC cuts into many short columns of
// the chart still reads as one span. Without any (idle) sample the profile
// cannot tell when the loop waited (V8 marks idle time only when the
// embedder says so; Node does): no spans are claimed.
const BLOCK_MIN_US = 50000 // 50 ms: docs/viewer.md, "Time order"

// [{ a, b, i0, i1 }]: µs from the profile's start, samples [i0, i1).
// isIdle(i): whether sample i is (idle).
function blockingSpans (td, isIdle, minUs = BLOCK_MIN_US) {
  const out = []
  let idleSeen = false
  let start = -1
  const close = (end) => {
    if (start >= 0 && td.ts[end] - td.ts[start] > minUs) out.push({ a: td.ts[start], b: td.ts[end], i0: start, i1: end })
    start = -1
  }
  for (let i = 0; i < td.n; i++) {
    if (isIdle(i)) { idleSeen = true; close(i) } else if (start < 0) start = i
  }
  close(td.n)
  return idleSeen ? out : []
}

module.exports = { BLOCK_MIN_US, blockingSpans }
