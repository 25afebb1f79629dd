'use strict'
// Does this Node's v8.startCpuProfile honour sampleInterval, and in which
// unit? And does its text parse? The probe behind src/addon/v8cpu.h's
// version check: run it on a new Node major before letting cprof use the
// path there.
//   node bench/v8cpu-probe.js
// Node 26.10: sampleInterval 10 gives a median gap of ~10 ms (milliseconds);
// Node 24.21: ~1 ms whatever it says. Both: a hot RegExp frame makes the
// text invalid JSON (its name is written unescaped).
const v8 = require('node:v8')
if (typeof v8.startCpuProfile !== 'function') {
  console.log(`Node ${process.versions.node}: no v8.startCpuProfile`)
  process.exit(0)
}
function burn (ms) {
  const t = Date.now(); const re = /^(\d+)-(\w+)$/; let k = 0
  while (Date.now() - t < ms) if (re.test(k++ + '-ab')) k++
  return k
}
for (const si of [undefined, 1, 10]) {
  const h = si === undefined ? v8.startCpuProfile() : v8.startCpuProfile({ sampleInterval: si })
  burn(300)
  const s = h.stop()
  let p
  try { p = JSON.parse(s) } catch (err) {
    console.log(`Node ${process.versions.node} sampleInterval ${si}: invalid JSON (${err.message})`)
    continue
  }
  const d = p.timeDeltas.slice(1).sort((a, b) => a - b)
  console.log(`Node ${process.versions.node} sampleInterval ${si}: ${p.samples.length} samples, median gap ${d[d.length >> 1]} us`)
}
