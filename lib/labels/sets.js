'use strict'
// Label sets (docs/labels.md): an app's labels checked, merged with the
// enclosing set (inner keys win) and interned to small ids, the ids the
// ring of switches holds (src/core/labelset.h). Bounded: keys and values
// by size, distinct sets per table by MAX_SETS; past it, a new set's
// samples carry only the overflow set's label.
const { invalidArg } = require('../errors')
const { describe } = require('../validate')

const MAX_KEYS = 16 // per set, after merging
const MAX_VALUE = 256 // characters
const MAX_SETS = 1000 // distinct sets per table (one table while labels are on)
const KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/ // pprof's and Pyroscope's label names

function isPlain (v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** labels checked: a plain object of string keys (pprof's label names) and
 * string values. Throws ERR_CPROF_INVALID_ARG. */
function check (labels) {
  if (!isPlain(labels)) throw invalidArg(`withLabels() labels must be a plain object of strings, got ${describe(labels)}`)
  const keys = Object.keys(labels)
  if (keys.length > MAX_KEYS) throw invalidArg(`withLabels() takes at most ${MAX_KEYS} labels, got ${keys.length}`)
  for (const k of keys) {
    if (!KEY.test(k)) {
      throw invalidArg(`withLabels() label name ${describe(k)} must be 1-64 letters, digits or _, not starting with a digit`)
    }
    const v = labels[k]
    if (typeof v !== 'string') throw invalidArg(`withLabels() label ${k} must be a string, got ${describe(v)}`)
    if (v.length > MAX_VALUE) throw invalidArg(`withLabels() label ${k} is ${v.length} characters long; at most ${MAX_VALUE}`)
    if (v.includes('\0')) throw invalidArg(`withLabels() label ${k} must not contain NUL (\\0)`)
  }
  return keys
}

/** A table of sets: id 0 is no labels; ids 1.. in the order first seen. */
function createTable () {
  const byKey = new Map()
  const list = [[]] // per id: [k, v, k, v, ...] (the addon's shape), keys sorted
  let overflowId = 0

  function add (pairs) {
    list.push(pairs)
    return list.length - 1
  }

  // The id of the merged labels (keys sorted, so { a, b } and { b, a } are one set).
  function idOf (merged) {
    const keys = Object.keys(merged).sort()
    if (keys.length === 0) return 0
    const pairs = []
    for (const k of keys) pairs.push(k, merged[k])
    const key = JSON.stringify(pairs)
    let id = byKey.get(key)
    if (id !== undefined) return id
    if (list.length > MAX_SETS) {
      if (overflowId === 0) overflowId = add(['cprof_overflow', 'true'])
      return overflowId
    }
    id = add(pairs)
    byKey.set(key, id)
    return id
  }

  return { idOf, sets: () => list, size: () => list.length - 1 }
}

/** parent's labels with labels over them (inner keys win), frozen; throws
 * ERR_CPROF_INVALID_ARG when the result has more than MAX_KEYS keys. */
function merge (parent, labels) {
  const keys = check(labels)
  if (!parent || keys.length === 0) return parent && keys.length === 0 ? parent : Object.freeze({ ...labels })
  const merged = { ...parent, ...labels }
  if (Object.keys(merged).length > MAX_KEYS) throw invalidArg(`withLabels() nested labels add up to more than ${MAX_KEYS} keys`)
  return Object.freeze(merged)
}

module.exports = { check, merge, createTable, MAX_KEYS, MAX_VALUE, MAX_SETS }
