'use strict'
// node attach-watchdog.js <pid> <preflight JSON> <token>: started by
// lib/fleet/attach.js, in a session of its own, before the target gets
// SIGUSR1; it outlives the attaching process. That process writes "open"
// to our stdin before sending the signal and "done" once it saw the
// target's inspector closed again. If stdin ends between the two, it died
// (SIGKILL, a crash, the OOM killer), or handed over: the inspector did not
// open within its --wait (a main thread busy in native code opens it
// later), or would not close. Nobody else would close it before the
// target's own timer fires — or at all, had no timer been armed: the
// watchdog closes it as soon as it listens and watches until it is closed,
// the target exits, or an hour passed (closeOpened), then exits. It
// touches only the inspector of that same process (pid and start time),
// found as attach finds it (a listening socket of that process new since
// before the signal that answers as an inspector, on whatever port), and
// leaves one alone while a live attach's guard
// announces itself there (a token other than the one we were given).
const { closeOpened } = require('./attach')

const [pid, pre, token] = [Number(process.argv[2]), JSON.parse(process.argv[3]), process.argv[4]]
let said = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (d) => { said += d })
process.stdin.on('error', () => {})
process.stdin.on('end', () => {
  const words = said.split('\n')
  if (!words.includes('open') || words.includes('done')) return
  closeOpened(pid, pre, token).catch(() => {})
})
