'use strict'
// Which signals can be cprof triggers, and their names read: init()'s
// signal, heapSignal and dumpSignal, and `cprof trigger --signal`.
const os = require('node:os')
const { invalidArg } = require('../errors')
const { invalid } = require('../validate')

const DEFAULT_SIGNAL = 'SIGUSR2'

// Signals that can never be triggers, by number (aliases such as SIGIOT
// included), and why. src/addon/signal.c refuses the same ones.
const REFUSED = new Map()
function refuse (names, why) {
  for (const name of names) REFUSED.set(os.constants.signals[name], why)
}
refuse(['SIGUSR1'], 'Node.js uses it to open the inspector')
refuse(['SIGINT', 'SIGTERM'], 'it asks the process to stop')
refuse(['SIGKILL', 'SIGSTOP'], 'it cannot be caught')
refuse(['SIGPROF'], "V8's CPU sampler uses it")
refuse(['SIGCHLD'], 'libuv uses it to watch child processes')
refuse(['SIGPIPE'], 'Node.js ignores it: writes to closed sockets raise it')
refuse(['SIGSEGV', 'SIGBUS', 'SIGFPE', 'SIGILL', 'SIGABRT', 'SIGTRAP', 'SIGSYS'],
  'it reports a fault and cannot be handled later on the event loop')

/** 'SIGUSR2', 'sigusr2' or 'USR2' → { name: 'SIGUSR2', number: 12 }. */
function parseSignal (value, what = 'signal') {
  if (typeof value !== 'string' || value === '') {
    throw invalid(`${what} must be a signal name such as "SIGUSR2"`, value)
  }
  const upper = value.toUpperCase()
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`
  const number = Object.hasOwn(os.constants.signals, name) ? os.constants.signals[name] : undefined
  if (number === undefined) {
    throw invalidArg(`${what}: ${JSON.stringify(value)} is not a signal this system knows ` +
      '(use a name such as "SIGUSR2", "SIGURG" or "SIGWINCH")')
  }
  if (REFUSED.has(number)) {
    throw invalidArg(`${what}: ${name} cannot be a cprof trigger: ${REFUSED.get(number)}`)
  }
  return { name, number }
}

module.exports = { DEFAULT_SIGNAL, parseSignal }
