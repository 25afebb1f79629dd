'use strict'
// Labels per request (docs/labels.md): withLabels(labels, fn) runs fn with
// labels current for its synchronous part and every async continuation it
// causes (AsyncLocalStorage), and each switch of the current set is written
// with its time into the ring C joins to the CPU samples at stop. Nothing is
// installed until a profile or the recorder asks for labels (use()); then
// one AsyncLocalStorage and an async_hooks before/after pair, removed again
// when the last user is done. With labels: { otel: true } each switch also
// carries the active OpenTelemetry span's root (otel.js).
const { invalidArg } = require('../errors')
const { describe } = require('../validate')
const ring = require('./ring')
const { check, merge, createTable } = require('./sets')
const otel = require('./otel')

let users = 0 // profiles and recorders with labels on
let otelUsers = 0 // those of them with labels: { otel: true }
let als = null // AsyncLocalStorage of { labels, id, table }
let hook = null
let table = null // this session's sets: a new table each time labels come on
let cur = 0 // the set id last written

// The store's id in this session's table (a store made in an earlier session
// is interned again).
function idOf (store) {
  if (store === undefined) return 0
  if (store.table !== table) {
    store.table = table
    store.id = table.idOf(store.labels)
  }
  return store.id
}

// The ring's id for store: its set's, with the active span's (otel.js).
function current (store) {
  const id = idOf(store)
  return otelUsers > 0 ? otel.withSpan(id) : id
}

function switchTo (id) {
  if (id !== cur) {
    cur = id
    ring.write(id)
  }
}

// async_hooks: a callback (an I/O completion, a timer, a promise reaction)
// starts: its context's set is current; it ends: none until the next.
function before () {
  switchTo(current(als.getStore()))
}

function after () {
  switchTo(0)
}

// How switches are observed (docs/labels.md, "How switches are seen"):
// 'hooks', async_hooks before and after, is the default; the others are
// kept for the measurement that chose it (CPROF_LABELS_MECHANISM):
// 'before', before alone (the C join counts (idle) samples as none), and
// 'promise', v8.promiseHooks' before and after (promise reactions only).
function makeHook (mechanism) {
  if (mechanism === 'promise') {
    let stop = null
    return {
      enable () { stop = require('node:v8').promiseHooks.createHook({ before, after }) },
      disable () { stop() }
    }
  }
  return require('node:async_hooks').createHook(mechanism === 'before' ? { before } : { before, after })
}

function install () {
  ring.open()
  if (!als) als = new (require('node:async_hooks').AsyncLocalStorage)()
  if (!hook) hook = makeHook(process.env.CPROF_LABELS_MECHANISM || 'hooks')
  table = createTable()
  cur = -1
  switchTo(0) // a session starts with no set: the ring may end with an old session's
  hook.enable()
}

function uninstall () {
  hook.disable()
  als.disable()
  switchTo(0)
  table = null
}

// OpenTelemetry's context.with(ctx, fn), wrapped (otel.js): fn's span is
// current while it runs.
function enter (fn, thisArg, args) {
  const prev = cur
  switchTo(current(als.getStore()))
  try {
    return Reflect.apply(fn, thisArg, args)
  } finally {
    switchTo(prev)
  }
}

/** Labels on for one more user (a profile, the recorder); spans: the
 * active OpenTelemetry span's labels too (labels: { otel: true }). */
function use (spans) {
  if (users++ === 0) install()
  if (spans && otelUsers++ === 0) otel.install(enter)
}

/** One user fewer (spans: as it was used); at none, the hooks go. */
function release (spans) {
  if (users === 0) return
  if (spans && otelUsers > 0 && --otelUsers === 0) otel.uninstall()
  if (--users === 0) uninstall()
}

/** Where a profile or window begins: { us, seq } (its time on the ring's
 * clock, its first span set); the current switch is written anew. */
function mark () {
  const seq = otel.mark()
  if (users > 0) {
    cur = -1
    switchTo(current(als.getStore()))
  }
  return { us: ring.now(), seq }
}

function run (store, fn, args) {
  const prev = cur
  switchTo(current(store))
  try {
    return fn(...args)
  } finally {
    switchTo(prev)
  }
}

/**
 * Runs fn(...args) with labels (an object of string values) merged over the
 * current ones; returns what fn returns. Checked whether or not labels are on.
 */
function withLabels (labels, fn, ...args) {
  if (typeof fn !== 'function') throw invalidArg(`withLabels() needs a function to run, got ${describe(fn)}`)
  if (users === 0) {
    check(labels)
    return fn(...args)
  }
  const parent = als.getStore()
  const merged = merge(parent && parent.labels, labels)
  const store = parent && merged === parent.labels ? parent : { labels: merged, id: 0, table: null }
  return als.run(store, run, store, fn, args)
}

/** The current labels (a frozen object); {} while no profile records labels. */
function getLabels () {
  const store = users > 0 ? als.getStore() : undefined
  return store ? store.labels : Object.freeze({})
}

/** What a stop hands the addon: the session's sets, the span sets since
 * from.seq (spanFirst: the first one's number, spanSets: packed, otel.js),
 * and where the profile began (from: mark()'s). */
function stopArgs (from, file) {
  const sets = table ? table.sets() : [[]]
  if (otelUsers === 0) return { sets, fromUs: from.us, file }
  const spans = otel.spanSets(from.seq, sets)
  return { sets, fromUs: from.us, file, spanFirst: spans.first, spanSets: spans.packed }
}

module.exports = { withLabels, getLabels, use, release, mark, stopArgs, now: ring.now, active: () => users > 0 }
