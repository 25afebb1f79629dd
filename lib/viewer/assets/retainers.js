// A heap snapshot page's retainer tree (snapshot.js): the selected object
// at the top, under it what holds it, and what holds those, as the data
// gives them (src/core/snapshot_view.c: nearest the roots first, a few
// levels deep, capped). The first retainer of each level opens by itself,
// so the path from a root shows at once, as DevTools does.
const { el, fmtCount, fmtValue } = require('./format')
function snapEdgeLabel (edge, type) {
  return type === 'element' || type === 'hidden' ? '[' + edge + ']' : edge
}

// Where a function is defined (the data's location: its script's URL,
// line and column from 1): the URL's last part and the line, as DevTools
// shows it; full, the whole URL and the column.
function snapWhere (loc, full) {
  const url = loc.url === undefined ? 'script ' + loc.scriptId : loc.url
  return full ? url + ':' + loc.line + ':' + loc.column : (url.slice(url.lastIndexOf('/') + 1) || url) + ':' + loc.line
}

// An object as DevTools names it: a string by its text (past 80 characters
// cut, with its length; the data cuts names past 1,024 and gives the full
// length as nameLength), a function by its name and where it is defined,
// anything else by its class; then @id. full: the location in full (for a
// tooltip).
function snapNodeLabel (n, full) {
  const t = n.type
  const len = n.nameLength ?? n.name.length
  const text = t === 'string' || t === 'concatenated string' || t === 'sliced string'
    ? JSON.stringify(len > 80 ? n.name.slice(0, 80) + '\u2026' : n.name) + (len > 80 ? ' (' + fmtCount(len) + ' chars)' : '')
    : t === 'closure' ? (n.name || '(anonymous)') + '()' + (n.location ? ' ' + snapWhere(n.location, full) : '') : n.class
  return text + ' @' + n.id
}

// A distance cell: DevTools' distance, or "—" (null in the data) for an
// object no user root (the global object) reaches by strong references.
const SNAP_NO_DISTANCE = 'No distance: no user root (the global object) reaches this object by strong references; only V8\'s own GC roots hold it, or nothing does'

function snapDistanceCell (d) {
  const td = el('td', 'num', d === null ? '\u2014' : fmtCount(d))
  if (d === null) td.title = SNAP_NO_DISTANCE
  return td
}

// A row's indentation: 12 px a level, 2 px past the 12th, so a deep chain
// (a linked list's entries, each holding the next) keeps most of the
// column for its labels; the label says the rest (its tooltip in full).
function snapIndent (depth) {
  return 8 + 12 * Math.min(depth, 12) + 2 * Math.max(0, depth - 12) + 'px'
}

function createRetainerTree (d, container) {
  const open = new Set() // path keys ("t/i/j"): rows shown expanded
  let root = -1
  const table = el('table', 'retainers')
  const head = el('tr')
  for (const h of ['Retainer', 'Distance', 'Shallow', 'Retained']) head.appendChild(el('th', h === 'Retainer' ? 'fn' : '', h))
  const tbody = el('tbody')
  table.append(el('thead'), tbody)
  table.tHead.appendChild(head)
  const note = el('div', 'note', 'Select an object to see what retains it.')
  container.append(note, table)

  function row (n, label, title, depth, key, expandable) {
    const tr = el('tr')
    tr.dataset.key = key
    const td = el('td', 'fn')
    td.style.paddingLeft = snapIndent(depth)
    td.title = title
    const tog = el('span', 'toggle', expandable ? (open.has(key) ? '\u25be' : '\u25b8') : '')
    if (expandable) tog.addEventListener('click', () => { open.has(key) ? open.delete(key) : open.add(key); render() })
    td.append(tog, el('span', 'name', label))
    tr.append(td, snapDistanceCell(n.distance), el('td', 'num', fmtValue(n.selfSize, 'bytes')), el('td', 'num', fmtValue(n.retainedSize, 'bytes')))
    tbody.appendChild(tr)
  }

  function noteRow (text, depth) {
    const tr = el('tr', 'more')
    const td = el('td', '', text)
    td.colSpan = 4
    td.style.paddingLeft = snapIndent(depth + 1)
    tr.appendChild(td)
    tbody.appendChild(tr)
  }

  // The retainers of table entry t under the row `key`; seen: the entries
  // on the way up (a cycle is shown once, not opened again).
  function children (t, key, depth, seen) {
    const n = d.table[t]
    if (!n.retainers) return noteRow('retainers not looked up: deeper than the page holds (cprof snapshot gives the full path)', depth)
    n.retainers.forEach(([edge, type, r], i) => {
      const k = key + '/' + i
      const cyc = seen.has(r)
      const label = (full) => snapEdgeLabel(edge, type) + ' in ' + snapNodeLabel(d.table[r], full) + (cyc ? ' (cycle)' : '')
      row(d.table[r], label(false), label(true), depth, k, !cyc && hasMore(r))
      if (!cyc && open.has(k)) children(r, k, depth + 1, new Set(seen).add(r))
    })
    if (n.more > 0) noteRow(`${fmtCount(n.more)} more retainer${n.more === 1 ? '' : 's'} not listed`, depth)
    if (n.weak > 0) noteRow(`${fmtCount(n.weak)} weak retainer${n.weak === 1 ? '' : 's'} not shown (weak edges do not retain)`, depth)
    if (n.retainers.length === 0 && !n.more && !n.weak) noteRow('no retainers: held by a GC root', depth)
  }

  function hasMore (t) {
    const n = d.table[t]
    return !n.retainers || n.retainers.length > 0 || n.more > 0 || n.weak > 0
  }

  function render () {
    tbody.replaceChildren()
    if (root < 0) return
    row(d.table[root], snapNodeLabel(d.table[root]), snapNodeLabel(d.table[root], true), 0, String(root), false)
    children(root, String(root), 1, new Set([root]))
  }

  // Opens the first retainer of each level, while there is one not seen.
  function openFirst (t) {
    const seen = new Set([t])
    let key = String(t)
    for (let n = d.table[t]; n.retainers && n.retainers.length > 0;) {
      const r = n.retainers[0][2]
      if (seen.has(r)) break
      key += '/0'
      open.add(key)
      seen.add(r)
      n = d.table[r]
    }
  }

  return {
    show (t) {
      root = t
      open.clear()
      openFirst(t)
      note.textContent = `What retains ${snapNodeLabel(d.table[t])}: each row is the edge and the object that holds the row above it, nearest a GC root first.`
      render()
    },
    get selected () { return root }
  }
}

module.exports = { createRetainerTree, snapDistanceCell, snapNodeLabel }
