// The flame graph on a <canvas>: frames narrower than half a pixel are not
// drawn (nor their subtrees), so 50,000 nodes draw in a few milliseconds.
// Click zooms into a frame, Escape or "Reset zoom" zooms out; search
// highlights matches; flame (root at the bottom) or icicle layout;
// alphabetical (the classic flame graph) or left-heavy order.
// At most LEVELS levels are drawn (a canvas taller than 32,767 px draws
// nothing): a deeper profile shows the levels from a few below the zoomed
// frame up; zooming into a frame near the top goes further (docs/cli.md).
const { share } = require('./model')
const ROW = 18
const LEVELS = 600
const CONTEXT = 8 // levels drawn below the zoomed frame when the window moves
const KIND_HUES = [[8, 36, 72, 60], [70, 100, 48, 52], [195, 225, 55, 66], [0, 0, 0, 74], [0, 0, 0, 88]]

function hashStr (s) {
  let h = 2166136261
  for (let i = 0; i < s.length && i < 64; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
  return (h >>> 0) / 4294967296
}

// Colours are strings the canvas parses: made once per function (per
// node in a diff), not once per frame per draw.
function colourTable (m) {
  const out = new Array(m.diff ? m.n : m.nf)
  for (let k = 0; k < out.length; k++) out[k] = m.diff ? frameColour(m, k, m.fn[k]) : frameColour(m, -1, k)
  return out
}

// The kind each node counts as: a V8 builtin (no script, not a "(...)"
// entry: map, repeat) runs for the code that called it and takes its
// caller's kind, as in the SVG (src/core/export_svg.c node_kind).
// Parents precede children.
function nodeKinds (m) {
  const out = new Uint8Array(m.n)
  for (let i = 0; i < m.n; i++) {
    const f = m.fn[i]
    const builtin = m.fns.kind[f] === 3 && !m.fns.name[f].startsWith('(')
    out[i] = builtin && m.parent[i] >= 0 ? out[m.parent[i]] : m.fns.kind[f]
  }
  return out
}

// Node i's colour: its function's, or for a builtin in its caller's kind
// (made once per kind and function).
function nodeColourer (m, colours) {
  if (m.diff) return (i) => colours[i]
  const kinds = nodeKinds(m)
  const other = new Map()
  return (i) => {
    const f = m.fn[i]
    const k = kinds[i]
    if (k === m.fns.kind[f]) return colours[f]
    const key = k * m.nf + f
    if (!other.has(key)) other.set(key, kindColour(k, m.fns.name[f]))
    return other.get(key)
  }
}

function frameColour (m, i, f) {
  if (m.diff) {
    // Of busy time, (idle) is no share (grey) and the root is the whole busy time.
    const busy = m.pctOf === 'busy'
    if (busy && m.fns.kind[f] === 4) return 'hsl(220, 8%, 86%)'
    const t0 = busy && i === 0 ? m.busy[0] : m.total[0][i]
    const t1 = busy && i === 0 ? m.busy[1] : m.total[1][i]
    const d = share(m, t1, 1) - share(m, t0, 0)
    const a = Math.min(1, Math.abs(d) / 4)
    if (a < 0.02) return 'hsl(220, 8%, 86%)'
    return d > 0 ? `hsl(6, ${55 + 30 * a}%, ${86 - 34 * a}%)` : `hsl(218, ${55 + 30 * a}%, ${86 - 34 * a}%)`
  }
  return kindColour(m.fns.kind[f], m.fns.name[f])
}

function kindColour (kind, name) {
  const [h0, h1, s, l] = KIND_HUES[kind] || KIND_HUES[3]
  const r = hashStr(name)
  return `hsl(${h0 + (h1 - h0) * r}, ${s}%, ${l - 6 * r}%)`
}

function createFlame (m, canvas, opts) {
  const state = { zoom: 0, order: 'alpha', layout: 'flame', match: null, matched: null, hover: -1, selectedFn: -1 }
  const xs = {}
  let colourOf = nodeColourer(m, colourTable(m))
  let rows = [] // per drawn level: [x0, x1, node, ...]
  const span = Math.min(m.maxDepth, LEVELS - 1) // drawn levels - 1
  let lo = 0 // the shallowest level drawn

  // The window of levels for the zoomed frame: from the root while the
  // whole profile fits, else from CONTEXT levels below the frame.
  function levelWindow () {
    const want = m.maxDepth <= span ? 0 : Math.max(0, Math.min(m.depth[state.zoom] - CONTEXT, m.maxDepth - span))
    const moved = want !== lo
    lo = want
    return moved
  }
  let charW = 7
  const ctx = canvas.getContext('2d')

  function xOf (order) {
    if (xs[order]) return xs[order]
    const x = new Float64Array(m.n)
    const t = m.total[m.main]
    for (let i = 0; i < m.n; i++) {
      let at = x[i]
      if (order === 'heavy') {
        for (const c of m.kidsOf(i, 'heavy')) { x[c] = at; at += t[c] }
      } else {
        for (let c = i + 1; c < m.end[i]; c = m.end[c]) { x[c] = at; at += t[c] }
      }
    }
    xs[order] = x
    return x
  }

  function resize () {
    const dpr = window.devicePixelRatio || 1
    const w = canvas.parentElement.clientWidth
    const h = (span + 1) * ROW
    canvas.style.height = h + 'px'
    canvas.width = Math.max(1, Math.round(w * dpr))
    canvas.height = Math.max(1, Math.round(h * dpr))
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0)
    draw()
    toRoot()
  }

  // The root in view: the flame layout has it at the bottom.
  function toRoot () {
    const wrap = canvas.parentElement
    wrap.scrollTop = state.layout === 'icicle' ? 0 : wrap.scrollHeight
  }

  function yOf (depth) {
    return state.layout === 'icicle' ? (depth - lo) * ROW : (lo + span - depth) * ROW
  }

  function rect (i, px, pw) {
    const f = m.fn[i]
    const y = yOf(m.depth[i])
    const matched = state.matched && state.matched[i]
    ctx.fillStyle = matched ? '#d63ad6' : colourOf(i)
    ctx.fillRect(px, y, Math.max(pw - 0.5, 0.5), ROW - 1)
    if (f === state.selectedFn || i === state.hover) {
      ctx.strokeStyle = i === state.hover ? '#1d2127' : '#b7791f'
      ctx.lineWidth = i === state.hover ? 1 : 2
      ctx.strokeRect(px + 0.5, y + 0.5, Math.max(pw - 1.5, 0.5), ROW - 2)
    }
    if (pw > 28) {
      const max = Math.floor((pw - 8) / charW)
      let text = m.fns.name[f]
      if (text.length > max) text = max > 2 ? text.slice(0, max - 1) + '\u2026' : ''
      if (text) {
        ctx.fillStyle = matched ? '#fff' : '#1d2127'
        ctx.fillText(text, px + 4, y + ROW - 5)
      }
    }
    rows[m.depth[i] - lo].push(px, px + pw, i)
  }

  function draw () {
    const w = canvas.width / (window.devicePixelRatio || 1)
    const t = m.total[m.main]
    const x = xOf(state.order)
    const z = state.zoom
    ctx.clearRect(0, 0, w, canvas.height)
    ctx.font = '11px ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace'
    charW = ctx.measureText('MMMMMMMMMM').width / 10 || 7
    rows = Array.from({ length: span + 1 }, () => [])
    if (!t[z]) return
    for (let a = m.parent[z]; a >= 0 && m.depth[a] >= lo; a = m.parent[a]) rect(a, 0, w)
    const scale = w / t[z]
    const x0 = x[z]
    for (let i = z; i < m.end[z];) {
      const pw = t[i] * scale
      if (pw < 0.5 || m.depth[i] > lo + span) { i = m.end[i]; continue }
      rect(i, (x[i] - x0) * scale, pw)
      i++
    }
  }

  function hit (ev) {
    const r = canvas.getBoundingClientRect()
    const px = ev.clientX - r.left; const py = ev.clientY - r.top
    const row = Math.floor(py / ROW)
    const list = rows[state.layout === 'icicle' ? row : span - row]
    if (!list) return -1
    for (let k = 0; k < list.length; k += 3) if (px >= list[k] && px < list[k + 1]) return list[k + 2]
    return -1
  }

  canvas.addEventListener('mousemove', (ev) => {
    const i = hit(ev)
    if (i !== state.hover) { state.hover = i; draw() }
    opts.onHover(i, ev)
  })
  canvas.addEventListener('mouseleave', () => { state.hover = -1; draw(); opts.onHover(-1) })
  canvas.addEventListener('click', (ev) => {
    const i = hit(ev)
    if (i < 0) return
    zoom(i)
    opts.onSelect(m.fn[i])
  })
  new ResizeObserver(() => resize()).observe(canvas.parentElement)

  function zoom (i) {
    state.zoom = i
    const moved = levelWindow()
    draw()
    if (moved) toRoot() // the zoomed frame is CONTEXT levels from the window's root end
    opts.onZoom(i)
  }

  return {
    state,
    draw,
    resize,
    zoom,
    // The levels drawn: { lo, hi, max } (hi < max: deeper ones left out).
    levels: () => ({ lo, hi: lo + span, max: m.maxDepth }),
    setOrder (o) { state.order = o; draw() },
    setLayout (l) { state.layout = l; draw(); toRoot() },
    selectFn (f) { state.selectedFn = f; draw() },
    // After the shares' denominator changed (a diff's colours are changes of share).
    recolour () { colourOf = nodeColourer(m, colourTable(m)); draw() },
    // Where node i was drawn (CSS px in the canvas), or null: for tests.
    rectOf (i) {
      const list = rows[m.depth[i] - lo] || []
      for (let k = 0; k < list.length; k += 3) if (list[k + 2] === i) return { x: list[k], w: list[k + 1] - list[k], y: yOf(m.depth[i]), h: ROW }
      return null
    },
    // Marks the nodes whose function matches; returns the share of the
    // total the matches cover (a match inside a match counts once).
    search (match) {
      state.match = match
      if (!match) { state.matched = null; draw(); return null }
      const fnHit = new Uint8Array(m.nf)
      let fns = 0
      for (let f = 0; f < m.nf; f++) if (match(m.label[f])) { fnHit[f] = 1; fns++ }
      const hitNode = new Uint8Array(m.n)
      let covered = 0
      const t = m.total[m.main]
      for (let i = 0; i < m.n; i++) if (fnHit[m.fn[i]]) hitNode[i] = 1
      for (let i = 0; i < m.n;) {
        if (hitNode[i]) { covered += t[i]; i = m.end[i] } else i++
      }
      state.matched = hitNode
      draw()
      return { fns, covered }
    }
  }
}

module.exports = { KIND_HUES, colourTable, createFlame, nodeColourer } // KIND_HUES: test/js/viewer/colours.test.js
