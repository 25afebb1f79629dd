'use strict'
// The one vocabulary for checking options, as Node's own
// lib/internal/validators.js is for Node's API: every option module of lib/
// (options.js, recorder/options.js, triggers/config.js, push/options.js,
// incidents/options.js) checks with these. A wrong value throws a typed
// error, code ERR_CPROF_INVALID_ARG (lib/errors.js), whose message names
// the option and shows what was given ("…, got number -5"). Every check
// takes (value, name, what the value must be, fallback): undefined is the
// fallback, so a caller's default sits beside the check.
const { invalidArg } = require('./errors')

/** A value as a message shows it: 'null', 'number 5', 'boolean true',
 * 'string "x"' (40 characters at most), 'array', 'object', 'function'. */
function describe (v) {
  if (v === null) return 'null'
  if (typeof v === 'number' || typeof v === 'boolean') return `${typeof v} ${v}`
  if (typeof v === 'string') return `string ${JSON.stringify(v.slice(0, 40))}`
  return Array.isArray(v) ? 'array' : typeof v
}

/** The error for value: `${mustBe}, got ${describe(value)}`. */
function invalid (mustBe, value) {
  return invalidArg(`${mustBe}, got ${describe(value)}`)
}

/** A plain object: not null, not an array. */
function isObject (v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v)
}

/** Throws on a key of obj not in keys: `unknown option "k" for init();
 * known options: …` (where: 'for init()', 'in incidents'; noun: 'option', 'key'). */
function validateKeys (obj, keys, where, noun = 'option') {
  for (const key of Object.keys(obj)) {
    if (!keys.includes(key)) {
      throw invalidArg(`unknown ${noun} "${key}" ${where}; known ${noun}s: ${keys.join(', ')}`)
    }
  }
  return obj
}

/** An options object of `where` (undefined or null: {}): a plain object
 * (else `${mustBe}, got …`) with only the known keys. */
function validateOptions (value, keys, where, mustBe) {
  if (value === undefined || value === null) return {}
  if (!isObject(value)) throw invalid(mustBe, value)
  return validateKeys(value, keys, `for ${where}`)
}

function validateBoolean (value, name, fallback) {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') throw invalid(`${name} must be a boolean`, value)
  return value
}

/** labels: false (the default), true, or { otel: boolean } (true with the
 * active OpenTelemetry span's labels when otel, docs/labels.md). → false,
 * true or { otel: true } */
function validateLabels (value, name, fallback) {
  if (value === undefined || typeof value === 'boolean') return value === undefined ? fallback : value
  if (!isObject(value)) throw invalid(`${name} must be a boolean or { otel: boolean }`, value)
  validateKeys(value, ['otel'], `for ${name}`)
  return validateBoolean(value.otel, `${name}.otel`, false) ? { otel: true } : true
}

/** CPROF_LABELS: a flag, or otel (labels with the OpenTelemetry span's). */
function envLabels (text) {
  if (text.trim().toLowerCase() === 'otel') return { otel: true }
  try {
    return envFlag(text)
  } catch {
    throw new Error('must be 1, 0 or otel (true/false, on/off, yes/no)')
  }
}

/** A non-empty string; hint says what it is ('a directory path'). */
function validateString (value, name, fallback, hint) {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || value === '') {
    throw invalid(`${name} must be a non-empty string${hint ? ` (${hint})` : ''}`, value)
  }
  return value
}

/** A path (file or directory): a non-empty string without NUL, which the
 * C core would take for the path's end ('a\0b' would be 'a'); hint says
 * what it is ('a directory path'). */
function validatePath (value, name, fallback, hint) {
  if (value === undefined) return fallback
  validateString(value, name, fallback, hint)
  if (value.includes('\0')) {
    throw invalid(`${name} must not contain a NUL character (\\0): the path would end there`, value)
  }
  return value
}

// The longest timer Node and libuv keep as asked: setTimeout turns a longer
// delay into 1 ms, and a profile whose duration never comes never settles.
const TIMER_MAX_MS = 2 ** 31 - 1 // about 24.8 days

/** A duration: a finite number of milliseconds >= 0 (> 0 with positive),
 * at most max (TIMER_MAX_MS). */
function validateMs (value, name, fallback, { positive = false, max = TIMER_MAX_MS } = {}) {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (positive && value === 0) || value > max) {
    throw invalid(`${name} must be a finite number of milliseconds ${positive ? '> 0' : '>= 0'} and <= ${max}` +
      `${max === TIMER_MAX_MS ? ' (about 24.8 days, the timer limit)' : ''}`, value)
  }
  return value
}

/** An integer in [min, max], in unit ('µs', 'bytes', 'frames'). */
function validateInteger (value, name, [min, max], unit, fallback) {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < min || value > max) {
    throw invalid(`${name} must be an integer from ${min} to ${max} ${unit}`, value)
  }
  return value
}

/** A finite number >= min (> min with above), <= max; integer: whole
 * only. The message: `${name} must be a number of ${unit} >= min and <= max`. */
function validateNumber (value, name, { min, max = Infinity, above = false, integer = false, unit }, fallback) {
  if (value === undefined) return fallback
  const ok = typeof value === 'number' && Number.isFinite(value) &&
    (above ? value > min : value >= min) && value <= max && (!integer || Number.isInteger(value))
  if (!ok) {
    const range = `${above ? '>' : '>='} ${min}${max < Infinity ? ` and <= ${max}` : ''}`
    throw invalid(`${name} must be ${integer ? 'an integer' : 'a number'}${unit ? ` of ${unit}` : ''} ${range}`, value)
  }
  return value
}

/** The text of a numeric environment variable ("30000") as a number;
 * throws a plain Error the caller prefixes with the variable's name. */
function envNumber (text) {
  if (text.trim() === '' || !Number.isFinite(Number(text))) throw new Error('must be a number')
  return Number(text)
}

/** The text of an on/off environment variable ("1", "off") as a boolean;
 * throws a plain Error the caller prefixes with the variable's name. */
function envFlag (text) {
  const s = text.trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(s)) return true
  if (['0', 'false', 'no', 'off'].includes(s)) return false
  throw new Error('must be 1 or 0 (true/false, on/off, yes/no)')
}

module.exports = {
  validateLabels,
  envLabels,
  describe,
  invalid,
  isObject,
  validateKeys,
  validateOptions,
  validateBoolean,
  validateString,
  validatePath,
  validateMs,
  TIMER_MAX_MS,
  validateInteger,
  validateNumber,
  envNumber,
  envFlag
}
