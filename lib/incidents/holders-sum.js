'use strict'
// What holds the bytes a heap trend sees growing: `cprof leaks --holders`
// (lib/cli/leaks-holders.js). The heap trend names allocation sites (where V8
// allocated the bytes: docs/recorder.md, Heap trend); two heap snapshots of
// the process some time apart, diffed in C (cprof snapshot diff's job:
// lib/snapshot-report.js), give the objects new in the second grouped by
// their retainer path. This file turns that diff into holders
// (`renderCache → Map: +12,210 (string), +92.6 MiB`) and says beforehand what
// the snapshots cost, by the rules measured in docs/incidents.md (The heap
// snapshot) and lib/snapshot.js.

const MIB = 1024 * 1024

// Measured (docs/incidents.md, The heap snapshot): the pause per MiB of used
// heap, RSS added while written and the file, as multiples of the used heap.
const PAUSE_MS_PER_MIB = [40, 80]
const PAUSE_MIN_MS = 500 // a 10 MiB heap paused 483–610 ms
const RSS_FACTOR = [8, 22]
const FILE_FACTOR = [1.3, 2.2]
const SPACE_FACTOR = 2 // lib/snapshot.js: refused below twice the heap free
// cprof snapshot diff's peak memory, measured: ~1.5 times the larger file (docs/cli.md)
const DIFF_FACTOR = 1.5

/**
 * What the snapshots will cost, from heap (bytes: the best estimate of the
 * target's used heap) and how many are taken: { heap, pauseMs: [lo, hi],
 * rss: [lo, hi] (added while each is written), file: [lo, hi] (each),
 * disk (free space the target's guard asks for, the files of all kept at
 * once), diffMemory (in the CLI process) }.
 */
function cost (heap, snapshots = 2) {
  const mib = heap / MIB
  return {
    heap,
    pauseMs: PAUSE_MS_PER_MIB.map((r) => Math.max(PAUSE_MIN_MS, Math.round(r * mib))),
    rss: RSS_FACTOR.map((f) => Math.round(f * heap)),
    file: FILE_FACTOR.map((f) => Math.round(f * heap)),
    disk: Math.round(Math.max(SPACE_FACTOR * heap, (snapshots - 1) * FILE_FACTOR[1] * heap + SPACE_FACTOR * heap)),
    diffMemory: Math.round(DIFF_FACTOR * FILE_FACTOR[1] * heap)
  }
}

// An edge that names an index: an element, or a name made of digits (a hash
// table's slots), as the diff's paths write `[]`.
const isIndex = (s) => s.edgeType === 'element' || s.edgeType === 'hidden' || /^\d+$/.test(s.edge)
// An edge a reader wrote: a property or a variable (a context slot).
const isNamed = (s) => (s.edgeType === 'property' || s.edgeType === 'context' || s.edgeType === 'shortcut') &&
  !/^\d+$/.test(s.edge)

function nodeLabel (s) {
  if (s.type === 'synthetic' && s.name) return s.name
  if (s.type === 'closure' && s.name) return `${s.name}()`
  return s.class
}

/**
 * The holder of an object, from its retainer path (cprof snapshot's steps,
 * root first): the variable or property that names the collection its
 * objects are entries of — the named edge nearest before the path's last
 * index step (`renderCache → Map` in … → renderCache → Map → table →
 * (array) → [] → Object → html → (string)); with no index step, the last
 * named edge before the object itself. null when the path names nothing.
 */
function holderOf (steps) {
  if (!Array.isArray(steps) || steps.length < 2) return null
  let end = steps.length - 1 // the object itself: never its own holder
  for (let i = steps.length - 1; i > 0; i--) {
    if (isIndex(steps[i])) {
      end = i
      break
    }
  }
  for (let i = end - 1; i > 0; i--) {
    if (isNamed(steps[i])) return `${steps[i].edge} → ${nodeLabel(steps[i])}`
  }
  return null
}

// The last node of a group's path text: the class of its objects.
const classOf = (path) => String(path).split(' → ').pop()

// V8's and Node's own objects, which grow as the app warms up (code
// compiled, shapes, contexts) and which no app holds: left out of the
// holders, counted apart. A Buffer's or ArrayBuffer's bytes
// (system / JSArrayBufferData) stay.
const isInternal = (cls) => /^\((compiled code|object shape|system)\)$|^Node \/ |^system \/ (?!JSArrayBufferData$)/.test(cls)

/**
 * The holders of what grew between the diff's two snapshots (its `added`
 * groups, each with one example path; V8's own objects left out, isInternal): [{ holder, count, selfSize,
 * perMinute, classes: [{ class, count, selfSize }], path }], largest shallow
 * growth first, at most top. Groups are disjoint (an object has one shortest
 * path), so shallow sizes add up; retained sizes would count an entry and
 * its strings twice. intervalMs: between the snapshots' starts.
 */
function holders (diff, intervalMs, top = 10) {
  const by = new Map()
  for (const g of (diff.added && diff.added.groups) || []) {
    if (isInternal(classOf(g.path))) continue
    const holder = holderOf(g.example && g.example.path) || '(no named holder)'
    let h = by.get(holder)
    if (!h) {
      h = { holder, count: 0, selfSize: 0, perMinute: null, classes: new Map(), path: g.path, largest: 0 }
      by.set(holder, h)
    }
    h.count += g.count
    h.selfSize += g.selfSize
    if (g.selfSize > h.largest) {
      h.largest = g.selfSize
      h.path = g.path
    }
    const cls = classOf(g.path)
    const c = h.classes.get(cls) || { class: cls, count: 0, selfSize: 0 }
    c.count += g.count
    c.selfSize += g.selfSize
    h.classes.set(cls, c)
  }
  return [...by.values()]
    .sort((a, b) => b.selfSize - a.selfSize || a.holder.localeCompare(b.holder))
    .slice(0, top)
    .map(({ largest, classes, ...h }) => ({
      ...h,
      perMinute: intervalMs > 0 ? Math.round(h.selfSize * 60_000 / intervalMs) : null,
      classes: [...classes.values()].sort((a, b) => b.selfSize - a.selfSize)
    }))
}

module.exports = { cost, holderOf, holders, isInternal, PAUSE_MS_PER_MIB, RSS_FACTOR, FILE_FACTOR, SPACE_FACTOR }
