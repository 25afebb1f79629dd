'use strict'
// node attach-watchdog.js <pid> <preflight JSON> <waitMs>: started by
// lib/fleet/attach.js, in a session of its own, before the target gets
// SIGUSR1; it outlives the attaching process. That process writes "open"
// to our stdin before sending the signal and "done" once the target's
// inspector is closed again. If stdin ends between the two, it died
// (SIGKILL, a crash, the OOM killer) and nobody else would close the
// inspector before the target's own timer fires — or at all, had it died
// before arming that timer: the watchdog closes it now, then exits. It
// touches only the inspector of that same process (pid and start time),
// at the port it was told.
const { closeOpened } = require('./attach')

const [pid, pre, waitMs] = [Number(process.argv[2]), JSON.parse(process.argv[3]), Number(process.argv[4])]
let said = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (d) => { said += d })
process.stdin.on('error', () => {})
process.stdin.on('end', () => {
  const words = said.split('\n')
  if (!words.includes('open') || words.includes('done')) return
  closeOpened(pid, pre, waitMs).catch(() => {})
})
