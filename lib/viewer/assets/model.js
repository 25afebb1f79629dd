// The profile as typed arrays: the C core's function tree (depth-first,
// children sorted by label) plus what every view needs: parents, totals,
// subtree ends, per-function self and total (a recursive function's total
// counts each sample once), children lists in both orders.
const { fmtPct, fmtPts, fmtValue } = require('./format')
function buildModel (d) {
  const n = d.nodes.fn.length
  const fn = Int32Array.from(d.nodes.fn)
  const depth = Int32Array.from(d.nodes.depth)
  const slots = d.diff ? [Float64Array.from(d.nodes.self), Float64Array.from(d.nodes.self1)] : [Float64Array.from(d.nodes.self)]
  const parent = new Int32Array(n).fill(-1)
  const end = new Int32Array(n)
  let maxDepth = 0
  const stack = []
  for (let i = 0; i < n; i++) {
    while (stack.length && depth[stack[stack.length - 1]] >= depth[i]) end[stack.pop()] = i
    parent[i] = stack.length ? stack[stack.length - 1] : -1
    if (depth[i] > maxDepth) maxDepth = depth[i]
    stack.push(i)
  }
  while (stack.length) end[stack.pop()] = n
  const totals = slots.map((self) => {
    const t = Float64Array.from(self)
    for (let i = n - 1; i > 0; i--) if (parent[i] >= 0) t[parent[i]] += t[i]
    return t
  })
  // The slot the views size things by: "after" in a diff.
  const main = slots.length - 1
  const fns = d.fns
  const nf = fns.name.length
  const fnSelf = slots.map(() => new Float64Array(nf))
  const fnTotal = slots.map(() => new Float64Array(nf))
  const fnNodes = Array.from({ length: nf }, () => [])
  const onStack = new Int32Array(nf)
  const open = []
  for (let i = 0; i < n; i++) {
    while (open.length && depth[open[open.length - 1]] >= depth[i]) onStack[fn[open.pop()]]--
    const f = fn[i]
    fnNodes[f].push(i)
    for (let s = 0; s < slots.length; s++) {
      fnSelf[s][f] += slots[s][i]
      if (onStack[f] === 0) fnTotal[s][f] += totals[s][i]
    }
    onStack[f]++
    open.push(i)
  }
  const label = new Array(nf)
  for (let f = 0; f < nf; f++) label[f] = fns.url[f] ? fns.name[f] + ' ' + fns.url[f] + (fns.line[f] ? ':' + fns.line[f] : '') : fns.name[f]
  const m = {
    d, n, fn, depth, parent, end, maxDepth, self: slots, total: totals, main, fns, nf, label,
    fnSelf, fnTotal, fnNodes, unit: d.unit, diff: !!d.diff,
    grand: slots.map((s, k) => totals[k][0] || 0)
  }
  // What percentages are of (setPctOf): the total, or the busy time, the
  // total without (idle) — waiting, which speedscope leaves out too.
  // (program) and GC are CPU work and stay in. A heap profile has no idle.
  m.busy = m.grand.map((g, k) => {
    let idle = 0
    for (let f = 0; f < nf; f++) if (fns.kind[f] === 4) idle += fnSelf[k][f]
    return g - idle
  })
  m.pctOf = 'total'
  m.denom = m.grand.slice()
  // Node i's children, in file (label) order or heaviest first. In
  // depth-first order they are i + 1, then each one's subtree end: no
  // lists are built up front (50,000 small arrays cost more than the rest
  // of the model); the heavy order is sorted and kept per node on demand.
  const heavy = new Map()
  m.kidsOf = (i, order) => {
    if (order === 'heavy' && heavy.has(i)) return heavy.get(i)
    const out = []
    for (let c = i + 1; c < end[i]; c = end[c]) out.push(c)
    if (order !== 'heavy') return out
    const t = totals[main]
    out.sort((a, b) => t[b] - t[a] || a - b)
    heavy.set(i, out)
    return out
  }
  return m
}

// The share of a node or function in slot s: value / that slot's total,
// or its busy time (m.pctOf).
function share (m, v, s) {
  return m.denom[s] ? 100 * v / m.denom[s] : 0
}

function setPctOf (m, which) {
  m.pctOf = which === 'busy' ? 'busy' : 'total'
  for (let k = 0; k < m.grand.length; k++) m.denom[k] = m.pctOf === 'busy' ? m.busy[k] : m.grand[k]
}

// What a percentage is of, in words (column tooltips, the toolbar).
function pctOfText (m) {
  return m.pctOf === 'busy'
    ? '% of busy time: the total without (idle), which is waiting, not code'
    : '% of the total' + (m.unit === 'us' ? ' sampled time, (idle) included' : ' sampled size')
}

// Special frames V8 adds: (idle), (program), (garbage collector).
function specialShare (m, name, s) {
  for (let f = 0; f < m.nf; f++) if (!m.fns.url[f] && m.fns.name[f] === name) return { v: m.fnSelf[s][f], pct: share(m, m.fnSelf[s][f], s) }
  return { v: 0, pct: 0 }
}

// A search: "/re/flags" is a regular expression, anything else a
// case-insensitive substring of the label. null when empty or invalid.
function matcher (text) {
  text = text.trim()
  if (!text) return null
  const re = /^\/(.+)\/([a-z]*)$/.exec(text)
  if (re) {
    try {
      const r = new RegExp(re[1], re[2].replace(/[gy]/g, ''))
      return (s) => r.test(s)
    } catch (_) { return null }
  }
  const low = text.toLowerCase()
  return (s) => s.toLowerCase().includes(low)
}

// A frame's tooltip: its name, script and figures (the flame graph, the
// time-order chart).
function tipText (m, i) {
  const f = m.fn[i]
  const s = m.main
  const lines = [`total ${fmtValue(m.total[s][i], m.unit)} (${fmtPct(m.total[s][i], m.denom[s])}), self ${fmtValue(m.self[s][i], m.unit)} (${fmtPct(m.self[s][i], m.denom[s])})`]
  if (m.diff) {
    lines.push(`before: total ${fmtPct(m.total[0][i], m.denom[0])}, self ${fmtPct(m.self[0][i], m.denom[0])}; change ${fmtPts(share(m, m.total[1][i], 1) - share(m, m.total[0][i], 0))} (total)`)
  }
  lines.push(pctOfText(m))
  return { name: m.fns.name[f], url: m.fns.url[f] ? m.fns.url[f] + (m.fns.line[f] ? ':' + m.fns.line[f] : '') : '', lines }
}

module.exports = { buildModel, matcher, pctOfText, setPctOf, share, specialShare, tipText }
