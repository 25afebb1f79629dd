'use strict'
// OpenTelemetry span labels (docs/labels.md, "OpenTelemetry"): with
// labels: { otel: true }, each switch also reads the active span of the
// app's own @opentelemetry/api (found through its global registry; cprof
// does not depend on it) and labels the samples with its *local root*
// span's span_id, span_name and trace_id, as grafana/otel-profiling-go does
// (otelpyroscope.go: profileTracer.Start, ScopeRootSpan), and sets
// pyroscope.profile.id on that root span so Grafana links trace and profile.
// A (label set, root span) pair is a "span set" with a sequence number; the
// ring's id is set + STRIDE * (seq + 1), and the last CAP span sets are
// kept (src/core/labelset.c decodes them; an older one is its set alone).
const REGISTRY = Symbol.for('opentelemetry.js.api.1') // @opentelemetry/api 1.x's global
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN') // its trace.setSpan key
const STRIDE = 131072 // > CPROF_LABEL_SETS_MAX: a set id fits below it
const CAP = 16384 // span sets kept: the newest; older ones lose their span labels
const MAX_NAME = 256 // span_name's characters, as a label value's
const SPAN_ID = /^[0-9a-f]{16}$/
const TRACE_ID = /^[0-9a-f]{32}$/
const KEYS = new Set(['span_id', 'span_name', 'trace_id'])

let roots = new WeakMap() // span → its local root's entry { id, name, trace } (null: no label)
let traceRoots = new Map() // trace id → its latest local root's entry, at most CAP
let kept = new Array(CAP) // seq % CAP → { set, root, seq }
let nextSeq = 0
let floor = 0 // span sets numbered below it are numbered anew when met again
let patched = null // { manager, with } while context.with is wrapped
let onEnter = null // (fn, thisArg, args) runs fn as a switch point (index.js)

function manager () {
  const api = globalThis[REGISTRY]
  return api && typeof api === 'object' ? api.context : undefined
}

function rootEntry (span, sc) {
  const entry = {
    id: sc.spanId,
    name: typeof span.name === 'string' ? span.name.slice(0, MAX_NAME).replace(/\0/g, '') : '',
    trace: TRACE_ID.test(sc.traceId) ? sc.traceId : ''
  }
  try {
    if (typeof span.isRecording === 'function' && span.isRecording()) span.setAttribute('pyroscope.profile.id', sc.spanId)
  } catch {
    // an app's span that refuses the attribute: the samples are labelled anyway
  }
  if (traceRoots.size >= CAP) traceRoots.delete(traceRoots.keys().next().value)
  traceRoots.set(sc.traceId, entry)
  return entry
}

// The local root's entry of span: span itself when its parent is remote or
// none (sdk-trace-base 2.x's parentSpanContext, 1.x's parentSpanId), else
// the root last seen of its trace, else span (first met: the local entry,
// as the Go client decides). null: not a sampled local span.
function rootOf (span) {
  let sc
  try {
    sc = span.spanContext()
  } catch {
    return null
  }
  if (!sc || sc.isRemote || !(sc.traceFlags & 1) || !SPAN_ID.test(sc.spanId)) return null
  const parent = span.parentSpanContext
  const local = parent ? !parent.isRemote : typeof span.parentSpanId === 'string' && span.parentSpanId !== ''
  return (local && traceRoots.get(sc.traceId)) || rootEntry(span, sc)
}

let lastCtx = null
let lastSet = -1
let lastId = 0

/** set (a label set id) with the active span's root: the ring's id. */
function withSpan (set) {
  const m = manager()
  if (!m) return set
  if (!patched || patched.manager !== m) wrap() // registered after labels came on
  const ctx = m.active()
  if (ctx === lastCtx && set === lastSet) return lastId
  const span = ctx && typeof ctx.getValue === 'function' ? ctx.getValue(SPAN_KEY) : undefined
  let root = null
  if (span && typeof span.spanContext === 'function') {
    root = roots.get(span)
    if (root === undefined) {
      root = rootOf(span)
      roots.set(span, root)
    }
  }
  const id = root ? STRIDE * (seqOf(root, set) + 1) + set : set
  lastCtx = ctx
  lastSet = set
  lastId = id
  return id
}

// The span set (set, root)'s number: its own while still kept and at or
// above the floor, else a new one.
function seqOf (root, set) {
  const s = root.sets && root.sets.get(set)
  if (s !== undefined && s >= floor && s >= nextSeq - CAP) return s
  if (!root.sets) root.sets = new Map()
  const seq = nextSeq++
  root.sets.set(set, seq)
  kept[seq % CAP] = { set, root }
  return seq
}

/** From here on, span sets are numbered at or above the returned floor. */
function mark () {
  floor = nextSeq
  lastCtx = null
  return floor
}

/** The span sets numbered from `from` on (the kept ones), each as the
 * addon's [k, v, ...]: its label set's pairs then the span's. →
 * { first, sets } */
function spanSets (from, setList) {
  const first = Math.max(from, nextSeq - CAP, 0)
  const sets = []
  for (let seq = first; seq < nextSeq; seq++) {
    const pairs = []
    if (!kept[seq % CAP]) {
      sets.push(pairs)
      continue
    }
    const { set, root } = kept[seq % CAP]
    const base = setList[set] || []
    for (let k = 0; k < base.length; k += 2) if (!KEYS.has(base[k])) pairs.push(base[k], base[k + 1])
    pairs.push('span_id', root.id)
    if (root.name) pairs.push('span_name', root.name)
    if (root.trace) pairs.push('trace_id', root.trace)
    sets.push(pairs)
  }
  return { first, sets }
}

// context.with(ctx, fn) runs fn under ctx synchronously: no async_hooks
// callback starts, so it is wrapped to be a switch point too (removed again).
function wrap () {
  const m = manager()
  if (!m || typeof m.with !== 'function' || (patched && patched.manager === m)) return
  unwrap()
  const orig = m.with
  const own = Object.prototype.hasOwnProperty.call(m, 'with')
  m.with = function (ctx, fn, thisArg, ...args) {
    if (typeof fn !== 'function' || !onEnter) return orig.call(this, ctx, fn, thisArg, ...args)
    return orig.call(this, ctx, onEnter, undefined, fn, thisArg, args)
  }
  patched = { manager: m, with: orig, own }
}

function unwrap () {
  if (!patched) return
  if (patched.own) patched.manager.with = patched.with
  else delete patched.manager.with
  patched = null
}

/** Span labels on: enter(fn, thisArg, args) runs fn as a switch point. */
function install (enter) {
  onEnter = enter
  wrap()
}

/** Span labels off: context.with unwrapped, the tables dropped. */
function uninstall () {
  unwrap()
  onEnter = null
  roots = new WeakMap()
  traceRoots = new Map()
  kept = new Array(CAP)
  floor = nextSeq
  lastCtx = null
  lastSet = -1
}

module.exports = { install, uninstall, withSpan, wrap, mark, spanSets, STRIDE, CAP }
