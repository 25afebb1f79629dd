// cprof ui's dashboard: the live processes that run cprof (cprof ps's
// cells), the profile files of the directory with why each was written
// (open one in the viewer, compare two, merge several of one kind), the
// recorder's windows on a timeline, and a timed profile of a live process
// by signal, with the file it reports or why there is none.
// Text from the server is always set with textContent.
(function () {
  'use strict'
  const $ = (id) => document.getElementById(id)
  const el = (tag, text, cls) => {
    const e = document.createElement(tag)
    if (text !== undefined) e.textContent = text
    if (cls) e.className = cls
    return e
  }
  const seen = new Set()
  let first = true
  const picked = []
  let chosen = null // the live process the start form acts on

  function human (n) {
    if (n >= 1024 * 1024) return (n / 1024 / 1024).toFixed(1) + ' MiB'
    if (n >= 1024) return (n / 1024).toFixed(1) + ' KiB'
    return n + ' B'
  }

  let shown = ''
  function renderFiles (files) {
    // Rows are rebuilt only when something changed: a click never lands on
    // a row being replaced.
    const sig = JSON.stringify([files, picked])
    if (sig === shown) return
    shown = sig
    const tbody = $('files')
    const frag = document.createDocumentFragment()
    for (const f of files.slice().reverse()) {
      const tr = el('tr')
      tr.dataset.name = f.name
      if (!first && !seen.has(f.name)) tr.className = 'new'
      seen.add(f.name)
      const pick = el('input')
      pick.type = 'checkbox'
      pick.checked = picked.includes(f.name)
      pick.title = 'Select two profiles of the same kind to compare, or several to merge'
      pick.addEventListener('change', () => {
        const i = picked.indexOf(f.name)
        if (pick.checked && i < 0) picked.push(f.name)
        if (!pick.checked && i >= 0) picked.splice(i, 1)
        load()
      })
      const td0 = el('td')
      td0.appendChild(pick)
      tr.appendChild(td0)
      tr.appendChild(el('td', f.kind))
      tr.appendChild(el('td', f.pid ? String(f.pid) : ''))
      tr.appendChild(el('td', new Date(f.time).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')))
      tr.appendChild(el('td', human(f.size)))
      tr.appendChild(el('td', f.why, 'why'))
      tr.appendChild(el('td', f.name, 'name'))
      const open = el('a', 'Open')
      open.href = 'view?file=' + encodeURIComponent(f.name)
      open.target = '_blank'
      open.rel = 'noopener'
      open.className = 'open'
      const td = el('td')
      td.appendChild(open)
      tr.appendChild(td)
      frag.appendChild(tr)
    }
    tbody.replaceChildren(frag)
    first = false
    const cmp = $('compare')
    // A file deleted meanwhile is no longer selected.
    for (let i = picked.length - 1; i >= 0; i--) if (!files.some((f) => f.name === picked[i])) picked.splice(i, 1)
    const kinds = picked.map((n) => files.find((f) => f.name === n).kind)
    // heap snapshots open one at a time (cprof snapshot diff compares them)
    const oneKind = kinds.every((k) => k === kinds[0]) && kinds[0] !== 'snapshot'
    const ok = picked.length === 2 && oneKind
    cmp.href = ok ? 'diff?before=' + encodeURIComponent(picked[0]) + '&after=' + encodeURIComponent(picked[1]) : '#'
    cmp.setAttribute('aria-disabled', String(!ok))
    $('compare-info').textContent = ok ? `${picked[0]} \u2192 ${picked[1]}` : 'select two profiles of the same kind (before first)'
    // Merge: oldest first (CPU samples follow each other in that order).
    const mergeOk = picked.length >= 2 && oneKind
    const byTime = files.filter((f) => picked.includes(f.name)).map((f) => f.name)
    const mrg = $('merge')
    mrg.href = mergeOk ? 'merge?' + byTime.map((n) => 'file=' + encodeURIComponent(n)).join('&') : '#'
    mrg.setAttribute('aria-disabled', String(!mergeOk))
    $('merge-info').textContent = mergeOk ? `${picked.length} ${kinds[0]} profiles` : picked.length >= 2 ? 'merge takes profiles of one kind' : ''
    $('count').textContent = `${files.length} profile${files.length === 1 ? '' : 's'}`
    renderTimeline(files.filter((f) => f.to))
  }

  // The recorder's windows: one lane per kind and process, blocks placed by time.
  function renderTimeline (windows) {
    $('timeline-box').hidden = windows.length === 0
    if (windows.length === 0) return $('timeline').replaceChildren()
    const t0 = Math.min(...windows.map((w) => Date.parse(w.time)))
    const t1 = Math.max(...windows.map((w) => Date.parse(w.to)))
    const span = Math.max(1, t1 - t0)
    const stamp = (ms) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')
    $('timeline-span').textContent = `${stamp(t0)} to ${stamp(t1)} UTC, ${windows.length} window${windows.length === 1 ? '' : 's'}`
    const lanes = new Map()
    for (const w of windows) {
      const key = `${w.kind} ${w.pid}`
      if (!lanes.has(key)) lanes.set(key, [])
      lanes.get(key).push(w)
    }
    const frag = document.createDocumentFragment()
    for (const [key, ws] of lanes) {
      const lane = el('div', undefined, 'lane')
      lane.dataset.lane = key
      lane.appendChild(el('span', key, 'lane-name'))
      const track = el('div', undefined, 'track')
      for (const w of ws) {
        const from = Date.parse(w.time)
        const to = Date.parse(w.to)
        const a = el('a', undefined, 'block ' + w.kind)
        a.dataset.name = w.name
        a.style.left = ((from - t0) / span * 100) + '%'
        a.style.width = ((to - from) / span * 100) + '%'
        a.title = `${w.name}\n${stamp(from)} to ${stamp(to)} UTC`
        a.href = 'view?file=' + encodeURIComponent(w.name)
        a.target = '_blank'
        a.rel = 'noopener'
        track.appendChild(a)
      }
      lane.appendChild(track)
      frag.appendChild(lane)
    }
    $('timeline').replaceChildren(frag)
  }

  // The live table: cprof ps's cells (the server shapes them, lib/fleet/
  // ps-rows.js). Rows are kept and their cells updated in place (CPU % and
  // RSS change at every poll): a click never lands on a row being replaced.
  const PS_CELLS = ['pid', 'app', 'pm2', 'instance', 'role', 'running', 'cpu', 'rss', 'heapTrend', 'signal']
  const procRows = new Map() // pid -> tr
  function renderProcesses (procs) {
    if (chosen !== null && !procs.some((p) => p.pid === chosen.pid)) chosen = null
    const want = new Set(procs.map((p) => p.pid))
    for (const [pid, tr] of procRows) if (!want.has(pid)) { tr.remove(); procRows.delete(pid) }
    const tbody = $('procs')
    for (const p of procs) {
      let tr = procRows.get(p.pid)
      if (!tr) {
        tr = el('tr')
        tr.dataset.pid = String(p.pid)
        for (const k of PS_CELLS) {
          const td = el('td')
          td.dataset.col = k
          tr.appendChild(td)
        }
        const b = el('button', 'Choose', 'choose')
        b.type = 'button'
        b.addEventListener('click', () => choose(procRows.get(p.pid).proc))
        const td = el('td')
        td.appendChild(b)
        tr.appendChild(td)
        procRows.set(p.pid, tr)
      }
      tr.proc = p
      PS_CELLS.forEach((k, i) => { if (tr.cells[i].textContent !== p.row[k]) tr.cells[i].textContent = p.row[k] })
      const isChosen = chosen !== null && chosen.pid === p.pid
      tr.className = isChosen ? 'chosen' : ''
      const b = tr.querySelector('button.choose')
      if (b.textContent !== (isChosen ? 'Chosen' : 'Choose')) b.textContent = isChosen ? 'Chosen' : 'Choose'
      tbody.appendChild(tr) // in the server's order (by pid); a no-op when in place
    }
    $('proc-count').textContent = `${procs.length} process${procs.length === 1 ? '' : 'es'}`
  }

  // The start form acts on the chosen process, with the signal it announced.
  function choose (p) {
    chosen = p
    $('pid').value = String(p.pid)
    fillSignal()
    load()
  }
  function fillSignal () {
    if (!chosen) return
    $('signal').value = ($('kind').value === 'heap' ? chosen.heapSignal : chosen.signal) || ''
  }

  // A job: what it did (its log), then the file the process reported, with
  // the viewer's link when it is in this directory, else its path and how
  // to open it; a failure says why, as an error.
  let jobsShown = ''
  function renderJobs (jobs) {
    const sig = JSON.stringify(jobs)
    if (sig === jobsShown) return
    jobsShown = sig
    $('jobs').replaceChildren(...jobs.slice().reverse().map((j) => {
      const d = el('div', undefined, j.state === 'failed' ? 'job err' : j.state === 'done' ? 'job ok' : 'job')
      d.dataset.job = String(j.id)
      d.dataset.state = j.state
      d.dataset.pid = String(j.pid)
      d.appendChild(el('div', `#${j.id} pid ${j.pid} ${j.kind} ${j.seconds} s: ${j.state}`, 'head'))
      // The error is said once, below, not also as the log's last line.
      const log = j.log.trim().split('\n').filter((l) => l && !(j.error && l.endsWith(j.error))).join('\n')
      if (log) d.appendChild(el('div', log, 'log'))
      if (j.file) {
        const f = el('div', undefined, 'file')
        f.appendChild(el('code', j.file, 'path'))
        if (j.name) {
          const a = el('a', 'Open', 'open')
          a.href = 'view?file=' + encodeURIComponent(j.name)
          a.target = '_blank'
          a.rel = 'noopener'
          f.append(' ', a)
        } else {
          // Not in this dashboard's directory: not served here.
          const where = j.file.slice(0, j.file.lastIndexOf('/')) || '/'
          f.appendChild(el('span', ` \u2014 written outside ${$('dir').textContent}: \`cprof html ${j.file}\` writes its page beside it, \`cprof ui ${where}\` serves its directory`, 'dim hint'))
        }
        d.appendChild(f)
      }
      if (j.state === 'failed' && j.error) d.appendChild(el('div', j.error, 'error'))
      return d
    }))
  }

  async function load () {
    try {
      const [files, jobs, procs] = await Promise.all(['api/files', 'api/jobs', 'api/processes'].map((u) => fetch(u).then((r) => r.json())))
      $('dir').textContent = files.dir
      $('dir2').textContent = files.dir
      renderFiles(files.files)
      renderJobs(jobs.jobs)
      renderProcesses(procs.processes)
      $('status').textContent = ''
    } catch (err) {
      $('status').textContent = 'cannot reach cprof ui: ' + err.message
    }
  }

  $('start').addEventListener('submit', async (ev) => {
    ev.preventDefault()
    const body = { pid: Number($('pid').value), kind: $('kind').value, seconds: Number($('seconds').value) }
    if ($('signal').value.trim()) body.signal = $('signal').value.trim()
    const r = await fetch('api/profile', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const j = await r.json()
    $('start-info').textContent = r.ok ? `profiling process ${body.pid} for ${body.seconds} s; the file shows up below when it is written` : j.error
    $('start-info').className = r.ok ? '' : 'err' // how it ends: its job, below
    load()
  })
  for (const id of ['compare', 'merge']) $(id).addEventListener('click', (ev) => { if ($(id).getAttribute('aria-disabled') === 'true') ev.preventDefault() })
  $('kind').addEventListener('change', fillSignal)
  $('pid').addEventListener('input', () => { if (chosen && $('pid').value !== String(chosen.pid)) { chosen = null; load() } })
  load()
  setInterval(load, 1500)
})()
