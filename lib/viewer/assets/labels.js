// Labels per request (docs/labels.md) in the page: each sample's label set
// (the exporter's "labels": the sets as [key, value, ...], the ids as
// base64, src/core/export_html.c), the filter — one or more key=value, kept
// in the URL's hash as where=<key>=<value> parts (hash.js) — and, in the
// header, the filter and each key's top values by time. A filter is a page
// state, as a range is: applyRange (time.js) counts only the samples it
// keeps, so every view, the header and the time order count only them,
// each sample weighing the gap to the next one (DevTools' rule, the one
// cprof report --where uses). Clauses on one key are alternatives, on
// different keys all must hold. Keys and values are shown as text only.
const { b64uints, el, fmtCount, fmtPct, fmtValue } = require('./format')
const { hashValues, setHashValues } = require('./hash')
const TOP_VALUES = 8 // values listed per key; the rest are summed on one row
const TOP_KEYS = 8 // keys listed; the rest named on one line
const MORE_VALUES = 500 // values a click on "… N more" lists
const MAX_CLAUSES = 32

/** The page's labels: { sets: [Map key -> value], setOf: per sample, keys }, or null. */
function labelData (d, td) {
  const L = d.labels
  if (!td || !L || !Array.isArray(L.sets) || typeof L.set !== 'string') return null
  const setOf = b64uints(L.set, L.setBits)
  L.set = null
  if (setOf.length !== td.n) return null
  const sets = L.sets.map((kv) => {
    const s = new Map()
    for (let k = 0; k + 1 < kv.length; k += 2) s.set(String(kv[k]), String(kv[k + 1]))
    return s
  })
  for (let i = 0; i < setOf.length; i++) if (setOf[i] >= sets.length) return null
  const keys = []
  const seen = new Set()
  for (const s of sets) for (const k of s.keys()) if (!seen.has(k)) { seen.add(k); keys.push(k) }
  return { sets, setOf, keys }
}

/** The filter in the URL: [{ key, value }], from where=<key>=<value> parts (each encoded, so a key may hold "="). */
function wantedFilter () {
  const out = []
  for (const raw of hashValues('where').slice(0, MAX_CLAUSES)) {
    const i = raw.indexOf('=')
    let c
    try { c = { key: decodeURIComponent(raw.slice(0, i)), value: decodeURIComponent(raw.slice(i + 1)) } } catch (_) { continue }
    if (i > 0 && !out.some((x) => x.key === c.key && x.value === c.value)) out.push(c)
  }
  return out
}

const clauseText = (c) => `${c.key}=${c.value}`
function filterText (filter) {
  return filter.map(clauseText).join(', ')
}

function setFilter (filter) {
  setHashValues('where', filter.map((c) => `${encodeURIComponent(c.key)}=${encodeURIComponent(c.value)}`))
}

// Per set, 1 when it passes every clause whose key is not `except`.
function setsPassing (ld, filter, except) {
  const byKey = new Map()
  for (const c of filter) {
    if (c.key === except) continue
    if (!byKey.has(c.key)) byKey.set(c.key, new Set())
    byKey.get(c.key).add(c.value)
  }
  const ok = new Uint8Array(ld.sets.length)
  ld.sets.forEach((s, i) => {
    let pass = 1
    for (const [k, values] of byKey) if (!s.has(k) || !values.has(s.get(k))) { pass = 0; break }
    ok[i] = pass
  })
  return ok
}

/** The samples the filter keeps, as a test of a sample index; null: no filter. */
function keeper (ld, filter) {
  if (!ld || !filter.length) return null
  const ok = setsPassing(ld, filter)
  const setOf = ld.setOf
  return (i) => ok[setOf[i]] === 1
}

// Each set's time over samples [i0, i1).
function setTimes (ld, td, i0, i1) {
  const t = new Float64Array(ld.sets.length)
  const ts = td.ts
  for (let i = i0; i < i1; i++) t[ld.setOf[i]] += ts[i + 1] - ts[i]
  return t
}

/**
 * Each key's values by time over the samples of the range that pass the
 * filter's clauses on the other keys: [{ key, total, values: [{ value,
 * us, samples }] }], heaviest first, '(none)' (value null) for samples
 * without the key.
 */
function topValues (ld, td, filter, i0, i1) {
  const times = setTimes(ld, td, i0, i1)
  const counts = new Float64Array(ld.sets.length)
  for (let i = i0; i < i1; i++) counts[ld.setOf[i]]++
  let total = 0
  for (const t of times) total += t
  return ld.keys.map((key) => {
    const ok = setsPassing(ld, filter, key)
    const by = new Map()
    ld.sets.forEach((s, i) => {
      if (!ok[i] || !counts[i]) return
      const v = s.has(key) ? s.get(key) : null
      const row = by.get(v) || { value: v, us: 0, samples: 0 }
      row.us += times[i]
      row.samples += counts[i]
      by.set(v, row)
    })
    const values = [...by.values()].sort((a, b) => b.us - a.us || (a.value === null) - (b.value === null))
    const labelled = values.reduce((n, v) => n + (v.value === null ? 0 : v.us), 0)
    return { key, total, labelled, values }
  }).sort((a, b) => b.labelled - a.labelled)
}

/**
 * The header's label panel: the filter (each clause removable, Clear) and
 * each key's top values, a value's row adding or removing it as a clause.
 * range: applyRange's (its samples i0..i1), else the whole profile.
 */
function createLabelsPanel (m, td, ld, filter, range) {
  const box = el('section')
  box.id = 'labels-panel'
  document.getElementById('head').appendChild(box)
  const i0 = range ? range.i0 : 0
  const i1 = range ? range.i1 : td.n
  const has = (key, value) => filter.some((c) => c.key === key && c.value === value)
  const toggle = (key, value) => setFilter(has(key, value) ? filter.filter((c) => !(c.key === key && c.value === value)) : [...filter, { key, value }])

  const line = el('div', 'labels-filter')
  line.id = 'labels-filter'
  if (filter.length) {
    line.appendChild(el('b', '', 'Label filter: '))
    for (const c of filter) {
      const chip = el('button', 'chip', clauseText(c) + ' \u00d7')
      chip.type = 'button'
      chip.title = 'Remove ' + clauseText(c) + ' from the filter'
      chip.addEventListener('click', () => toggle(c.key, c.value))
      line.appendChild(chip)
    }
    const clear = el('button', '', 'Clear filter')
    clear.type = 'button'
    clear.id = 'labels-clear'
    clear.title = 'Every view shows every sample again'
    clear.addEventListener('click', () => setFilter([]))
    const all = setTimes(ld, td, i0, i1).reduce((a, b) => a + b, 0)
    const kept = m.grand[0]
    line.append(clear, el('span', 'dim', ` ${fmtValue(kept, 'us')} of ${fmtValue(all, 'us')} (${fmtPct(kept, all)}), ${fmtCount(m.d.samples[0])} of ${fmtCount(i1 - i0)} samples${range ? ' in the range' : ''}: every view counts only these samples.` +
      (kept ? '' : ' No sample matches.')))
  } else {
    line.appendChild(el('span', 'dim', 'Labels: click a value to show only its samples in every view (more values of a key: either; of several keys: all).'))
  }
  box.appendChild(line)

  const grid = el('div', 'labels-top')
  grid.id = 'labels-top'
  const tops = topValues(ld, td, filter, i0, i1)
  for (const t of tops.slice(0, TOP_KEYS)) {
    const card = el('table', 'labels-key')
    card.dataset.key = t.key
    const cap = el('caption', '', t.key)
    cap.title = `${t.key}: each value's time and share of the ${range ? 'range' : 'profile'} (${fmtValue(t.total, 'us')})`
    card.appendChild(cap)
    const body = el('tbody')
    const shown = t.values.slice(0, TOP_VALUES)
    const max = shown.length ? shown[0].us : 0
    const valueRow = (v) => {
      const tr = el('tr', v.value === null ? 'none' : has(t.key, v.value) ? 'on' : 'value')
      const name = el('td', 'lv', v.value === null ? '(none)' : v.value)
      name.title = v.value === null ? `samples without ${t.key}` : `${t.key}=${v.value}: click to ${has(t.key, v.value) ? 'remove it from' : 'add it to'} the filter`
      const b = el('span', 'bar')
      b.style.width = '60px'
      const fill = el('span')
      fill.style.width = (max > 0 ? Math.round(60 * v.us / max) : 0) + 'px'
      b.appendChild(fill)
      const barCell = el('td')
      barCell.appendChild(b)
      const us = el('td', 'num', fmtValue(v.us, 'us'))
      us.dataset.us = String(v.us)
      tr.append(name, barCell, us, el('td', 'num pct', fmtPct(v.us, t.total)))
      tr.dataset.samples = String(v.samples)
      if (v.value !== null) {
        tr.dataset.value = v.value
        tr.addEventListener('click', () => toggle(t.key, v.value))
      }
      return tr
    }
    for (const v of shown) body.appendChild(valueRow(v))
    // The rest summed on one row; a click lists the next MORE_VALUES.
    const restRow = (from) => {
      const rest = t.values.slice(from)
      const us = rest.reduce((n, v) => n + v.us, 0)
      const tr = el('tr', 'rest')
      tr.title = `Show ${rest.length > MORE_VALUES ? 'the next ' + fmtCount(MORE_VALUES) : 'them'}`
      tr.append(el('td', 'lv', `\u2026 ${fmtCount(rest.length)} more`), el('td'), el('td', 'num', fmtValue(us, 'us')), el('td', 'num pct', fmtPct(us, t.total)))
      tr.addEventListener('click', () => {
        const to = from + MORE_VALUES
        tr.replaceWith(...t.values.slice(from, to).map(valueRow), ...(to < t.values.length ? [restRow(to)] : []))
      })
      return tr
    }
    if (t.values.length > TOP_VALUES) body.appendChild(restRow(TOP_VALUES))
    card.appendChild(body)
    grid.appendChild(card)
  }
  if (tops.length > TOP_KEYS) grid.appendChild(el('div', 'note', `${fmtCount(tops.length - TOP_KEYS)} more keys: ${tops.slice(TOP_KEYS).map((t) => t.key).join(', ')}`))
  box.appendChild(grid)
  return { filter, tops }
}

module.exports = { createLabelsPanel, filterText, keeper, labelData, topValues, wantedFilter }
