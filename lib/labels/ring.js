'use strict'
// The ring of label-set switches (src/addon/labels.h, src/core/labelset.h):
// C makes it (one per thread's environment) and reads it at stop; this
// writes (time, set id) into it through a Float64Array, no call into C per
// switch. Time is µs on CLOCK_MONOTONIC, the clock of V8's sample times
// (and of process.hrtime): performance.now() plus this process's offset.
const native = require('../native')

const CAP = 1 << 20 // switches kept: 16 MiB; the last ~25 s at 40,000 switches a second

let ring = null
let slot = 1 // the next pair's index in ring
let count = 0 // switches ever written (ring[0])
let originUs = 0 // CLOCK_MONOTONIC µs at performance.now() 0

// The offset between performance.now() and process.hrtime, read where the
// two reads are closest together.
function clockOrigin () {
  let best = Infinity
  let origin = 0
  for (let k = 0; k < 8; k++) {
    const a = performance.now()
    const h = Number(process.hrtime.bigint()) / 1000
    const b = performance.now()
    if (b - a < best) {
      best = b - a
      origin = h - (a + b) * 500
    }
  }
  return origin
}

function open () {
  if (ring) return
  const buf = native.labelsRing(CAP)
  ring = new Float64Array(buf)
  count = ring[0]
  slot = 1 + 2 * (count % CAP)
  originUs = clockOrigin()
}

/** Now, in µs on the ring's clock. */
const now = () => performance.now() * 1000 + originUs

/** Records a switch to set id now. */
function write (id) {
  ring[slot] = performance.now() * 1000 + originUs
  ring[slot + 1] = id
  slot = slot + 2 >= ring.length ? 1 : slot + 2
  ring[0] = ++count
}

module.exports = { open, now, write, CAP }
