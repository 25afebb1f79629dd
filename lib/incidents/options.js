'use strict'
// Checking init({ incidents }) and reading it from CPROF_ON_* variables.
// Every threshold is off unless given; a wrong type, range or an unknown
// key → ERR_CPROF_INVALID_ARG naming the option.
const { invalidArg } = require('../errors')
const { invalid, isObject, validateKeys, validateNumber, envNumber, envFlag } = require('../validate')
const { heapGrowthOption, envHeapGrowth } = require('./heap-growth')

const COOLDOWN_DEFAULT_MS = 5 * 60 * 1000
const MAX_PER_HOUR_DEFAULT = 12
const CPU_WINDOW_DEFAULT_MS = 10_000
const LAST_DEFAULT_MS = 30_000
const HEAP_NEAR_LIMIT_DEFAULT = 75
const HEAP_LOW_MARK_DEFAULT = 50
// A crossing this many times the value of its trigger's last firing fires
// through the cooldown: a bigger event is never hidden by a smaller one.
const ESCALATE_DEFAULT = 2
// The first seconds of a process (module loading, compiling) are noisy for
// eventLoopDelay and cpu: until then a crossing must reach escalate times
// the threshold to fire (a real stall right after still fires as usual).
const WARMUP_DEFAULT_MS = 5000
const TRIGGERS = ['eventLoopDelay', 'cpu', 'rss', 'heapNearLimit', 'heapGrowth']
const KEYS = [...TRIGGERS, 'cpuWindow', 'heapLowMark', 'cooldown', 'maxPerHour', 'escalate', 'warmup', 'last']

// Environment variable → incidents key (a.b: key b of a's object, set by
// a variable before it), and how its text is read.
const ENV_VARS = [
  ['CPROF_ON_EVENT_LOOP_DELAY', 'eventLoopDelay', envNumber],
  ['CPROF_ON_CPU', 'cpu', envNumber],
  ['CPROF_ON_CPU_WINDOW', 'cpuWindow', envNumber],
  ['CPROF_ON_RSS', 'rss', envBytes],
  ['CPROF_ON_HEAP_NEAR_LIMIT', 'heapNearLimit', envNumber],
  ['CPROF_ON_HEAP_LOW_MARK', 'heapLowMark', envNumber],
  ['CPROF_ON_HEAP_GROWTH', 'heapGrowth', envHeapGrowth],
  ['CPROF_ON_HEAP_GROWTH_SNAPSHOT', 'heapGrowth.snapshot', envFlag],
  ['CPROF_ON_HEAP_GROWTH_HOLDERS', 'heapGrowth.holders', envNumber],
  ['CPROF_ON_COOLDOWN', 'cooldown', envNumber],
  ['CPROF_ON_MAX_PER_HOUR', 'maxPerHour', envNumber],
  ['CPROF_ON_ESCALATE', 'escalate', envNumber],
  ['CPROF_ON_WARMUP', 'warmup', envNumber],
  ['CPROF_ON_LAST', 'last', envNumber]
]

// A number in (min, max] (above: > min) or [min, max].
function number (value, name, unit, min, max, { above = false, integer = false } = {}) {
  return validateNumber(value, `incidents.${name}`, { min, max, above, integer, unit })
}

// A threshold: undefined, null or false → off.
function threshold (value, name, unit, min, max, fallback) {
  if (value === undefined || value === null || value === false) return null
  if (value === true && fallback !== undefined) return fallback
  return number(value, name, unit, min, max, { above: true })
}

/**
 * init()'s incidents → null (no trigger set) or { eventLoopDelay (ms),
 * cpu (%), cpuWindow (ms), rss (bytes), heapNearLimit (%), heapLowMark (%),
 * heapGrowth ({ mbPerMinute, minutes }),
 * cooldown (ms), maxPerHour, escalate (factor, 0: off), warmup (ms of the
 * process's uptime), last (ms) } with null for the triggers off.
 */
function incidentsOption (value) {
  if (value === undefined || value === null || value === false) return null
  if (!isObject(value)) throw invalid('incidents must be an object such as { eventLoopDelay: 200 }', value)
  validateKeys(value, KEYS, 'in incidents')
  const v = value
  const o = {
    eventLoopDelay: threshold(v.eventLoopDelay, 'eventLoopDelay', 'milliseconds', 0, 3_600_000),
    cpu: threshold(v.cpu, 'cpu', 'percent of one core', 0, 100_000),
    rss: threshold(v.rss, 'rss', 'bytes', 0, Number.MAX_SAFE_INTEGER),
    heapNearLimit: threshold(v.heapNearLimit, 'heapNearLimit', 'percent', 0, 100, HEAP_NEAR_LIMIT_DEFAULT),
    heapGrowth: heapGrowthOption(v.heapGrowth), // lib/incidents/heap-growth.js
    cpuWindow: v.cpuWindow === undefined ? CPU_WINDOW_DEFAULT_MS
      : number(v.cpuWindow, 'cpuWindow', 'milliseconds', 100, 3_600_000),
    heapLowMark: null,
    cooldown: v.cooldown === undefined ? COOLDOWN_DEFAULT_MS
      : number(v.cooldown, 'cooldown', 'milliseconds', 0, Number.MAX_SAFE_INTEGER),
    maxPerHour: v.maxPerHour === undefined ? MAX_PER_HOUR_DEFAULT
      : number(v.maxPerHour, 'maxPerHour', 'firings', 0, Number.MAX_SAFE_INTEGER, { integer: true }),
    escalate: escalateOption(v.escalate),
    warmup: v.warmup === undefined ? WARMUP_DEFAULT_MS
      : number(v.warmup, 'warmup', 'milliseconds', 0, 3_600_000),
    last: v.last === undefined ? LAST_DEFAULT_MS
      : number(v.last, 'last', 'milliseconds', 0, Number.MAX_SAFE_INTEGER)
  }
  if (o.heapNearLimit !== null) {
    o.heapLowMark = v.heapLowMark === undefined
      ? Math.max(0, Math.min(HEAP_LOW_MARK_DEFAULT, o.heapNearLimit - 25))
      : number(v.heapLowMark, 'heapLowMark', 'percent', 0, 100)
    if (o.heapLowMark >= o.heapNearLimit) {
      throw invalidArg(`incidents.heapLowMark (${o.heapLowMark}) must be below incidents.heapNearLimit (${o.heapNearLimit})`)
    }
  } else if (v.heapLowMark !== undefined) {
    throw invalidArg('incidents.heapLowMark is set but incidents.heapNearLimit is not')
  }
  if (o.cpu === null && v.cpuWindow !== undefined) {
    throw invalidArg('incidents.cpuWindow is set but incidents.cpu is not')
  }
  if (TRIGGERS.every((t) => o[t] === null)) {
    throw invalidArg(`incidents sets no trigger: give at least one of ${TRIGGERS.join(', ')}`)
  }
  return o
}

// escalate: a factor >= 1, or 0 / false: never through the cooldown (and
// no higher bar in the warm-up).
function escalateOption (value) {
  if (value === undefined) return ESCALATE_DEFAULT
  if (value === false || value === 0) return 0
  if (typeof value === 'number' && value >= 1 && value <= 1000) return value
  throw invalid('incidents.escalate must be a number of times the last firing\'s value, >= 1 and <= 1000, or 0 (off)', value)
}

// Bytes, or a number with a binary unit: 512M, 1.5GiB, 800k.
function envBytes (text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmg])?(?:i?b)?\s*$/i.exec(text)
  if (!m) throw new Error('must be a number of bytes, optionally with K, M or G (KiB, MiB, GiB)')
  const scale = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] || '').toLowerCase()] || 1
  return Math.round(Number(m[1]) * scale)
}

// out[key] = value, or for a.b out[a][b]: out[a] must be an object already
// (CPROF_ON_HEAP_GROWTH_SNAPSHOT without CPROF_ON_HEAP_GROWTH is an error).
function setKey (out, key, value) {
  const [a, b] = key.split('.')
  if (b === undefined) {
    out[a] = value
    return
  }
  const parent = ENV_VARS.find(([, k]) => k === a)[0]
  if (!isObject(out[a])) throw new Error(`is set but ${parent} is not`)
  out[a][b] = value
}

/**
 * The CPROF_ON_* variables → an incidents object (undefined when none is
 * set). Throws ERR_CPROF_INVALID_ARG naming the variable.
 */
function envIncidents (env) {
  let out
  for (const [name, key, read] of ENV_VARS) {
    const text = env[name]
    if (text === undefined || text === '') continue
    out = out || {}
    try {
      setKey(out, key, read(text))
    } catch (err) {
      throw invalidArg(`${name}=${JSON.stringify(text.slice(0, 40))}: ${err.message}`)
    }
  }
  if (out === undefined) return undefined
  try {
    incidentsOption(out)
  } catch (err) {
    const entry = ENV_VARS.find(([name, key]) => env[name] !== undefined && err.message.startsWith(`incidents.${key} `))
    err.message = entry ? `${entry[0]}: ${err.message}` : `CPROF_ON_*: ${err.message}`
    throw err
  }
  return out
}

module.exports = {
  TRIGGERS,
  KEYS,
  ENV_VARS,
  COOLDOWN_DEFAULT_MS,
  MAX_PER_HOUR_DEFAULT,
  ESCALATE_DEFAULT,
  WARMUP_DEFAULT_MS,
  CPU_WINDOW_DEFAULT_MS,
  LAST_DEFAULT_MS,
  incidentsOption,
  envIncidents
}
