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

let roots = new WeakMap() // span → its local root's entry (rootEntry; null: no label)
let traceRoots = new Map() // trace id → its latest local root's entry, at most CAP
let traceRing = new Array(CAP) // the trace ids in traceRoots, oldest evicted first
let traceNext = 0
let kept = new Array(CAP) // seq % CAP → { set, root, seq }
let nextSeq = 0
let floor = 0 // span sets numbered below it are numbered anew when met again
let patched = null // { manager, with } while context.with is wrapped
let onEnter = null // (fn, thisArg, args) runs fn as a switch point (index.js)

let registry = null // the API's global object, once found (it stays: the API mutates it)

function manager () {
  if (registry === null) {
    const api = globalThis[REGISTRY]
    if (!api || typeof api !== 'object') return undefined
    registry = api
  }
  return registry.context
}

function rootEntry (span, sc) {
  const name = typeof span.name === 'string' ? span.name.slice(0, 4 * MAX_NAME).replace(/\0/g, '').slice(0, MAX_NAME) : ''
  const trace = TRACE_ID.test(sc.traceId) ? sc.traceId : ''
  // its labels as spanSets() packs them: [pairs, text]
  const entry = {
    pairs: 1 + (name ? 1 : 0) + (trace ? 1 : 0),
    packed: `span_id\0${sc.spanId}\0${name ? `span_name\0${name}\0` : ''}${trace ? `trace_id\0${trace}\0` : ''}`,
    sets: null
  }
  try {
    if (typeof span.isRecording === 'function' && span.isRecording()) span.setAttribute('pyroscope.profile.id', sc.spanId)
  } catch {
    // an app's span that refuses the attribute: the samples are labelled anyway
  }
  // evicted by a ring, not Map's first key: after many deletions that
  // lookup walks the deleted entries (V8's ordered hash table)
  const old = traceRing[traceNext]
  if (old !== undefined && traceRoots.get(old.trace) === old.entry) traceRoots.delete(old.trace)
  traceRing[traceNext] = { trace: sc.traceId, entry }
  traceNext = (traceNext + 1) % CAP
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
  const s = root.sets ? root.sets.get(set) : undefined
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

/** The span sets numbered from `from` on (the kept ones), each its label
 * set's pairs then the span's, packed for the addon (src/addon/labels.c
 * read_span_sets: each token ended by a NUL, a set's pair count first; no
 * key or value holds a NUL). → { first, packed } */
function spanSets (from, setList) {
  const first = Math.max(from, nextSeq - CAP, 0)
  const bases = new Map() // set id → [pairs, text] without span keys
  const parts = [] // joined at the end: one flat string for the addon, not a rope
  for (let seq = first; seq < nextSeq; seq++) {
    const e = kept[seq % CAP]
    if (!e) {
      parts.push('0\0')
      continue
    }
    let base = bases.get(e.set)
    if (!base) {
      const kv = setList[e.set] || []
      base = [0, '']
      for (let k = 0; k < kv.length; k += 2) {
        if (!KEYS.has(kv[k])) {
          base[0]++
          base[1] += `${kv[k]}\0${kv[k + 1]}\0`
        }
      }
      bases.set(e.set, base)
    }
    parts.push(`${base[0] + e.root.pairs}\0`, base[1], e.root.packed)
  }
  return { first, packed: parts.join('') }
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
  traceRing = new Array(CAP)
  traceNext = 0
  kept = new Array(CAP)
  floor = nextSeq
  lastCtx = null
  lastSet = -1
}

module.exports = { install, uninstall, withSpan, wrap, mark, spanSets, STRIDE, CAP }
