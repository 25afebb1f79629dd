'use strict'
// A signal trigger: the native watcher (src/addon/signal.c, an unref'd
// uv_signal_t that runs fn on the event loop) plus a no-op process.on()
// listener for the same signal. The listener is there for Node, not for us:
// process.kill(process.pid, sig) with no JS listener for sig expects the
// process to die and runs the environment's at-exit hooks first
// (src/node_process_methods.cc, Kill), and with an inspector session open
// one of them tells V8 that the main context is destroyed. The process
// lives on (our watcher catches the signal), but V8's console no longer
// finds a session for the context: the recorder's windows (console
// profiles) were all lost after an app signalled itself. Node counts only
// its own signal listeners, so a JS listener is the one way to say "this
// signal is handled".
const native = require('../native')

/** Watches sig ({ name, number }) in slot; returns the function that undoes it. */
function watchSignal (slot, sig, fn) {
  native.signalWatch({ slot, signal: sig.number, onSignal: fn })
  const cprofSignalGuard = () => {} // the work runs in the native watcher
  process.on(sig.name, cprofSignalGuard)
  return () => {
    process.removeListener(sig.name, cprofSignalGuard)
    native.signalUnwatch(slot)
  }
}

module.exports = { watchSignal }
