// cprof ui's dashboard: the profile files of the directory (open one in the
// viewer, compare two), and a timed profile of a live process by signal.
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
      pick.title = 'Select two profiles of the same kind to compare'
      pick.addEventListener('change', () => {
        const i = picked.indexOf(f.name)
        if (pick.checked && i < 0) picked.push(f.name)
        if (!pick.checked && i >= 0) picked.splice(i, 1)
        while (picked.length > 2) picked.shift()
        load()
      })
      const td0 = el('td')
      td0.appendChild(pick)
      tr.appendChild(td0)
      tr.appendChild(el('td', f.kind))
      tr.appendChild(el('td', f.pid ? String(f.pid) : ''))
      tr.appendChild(el('td', new Date(f.time).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')))
      tr.appendChild(el('td', human(f.size)))
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
    const kinds = picked.map((n) => (files.find((f) => f.name === n) || {}).kind)
    const ok = picked.length === 2 && kinds[0] === kinds[1]
    cmp.href = ok ? 'diff?before=' + encodeURIComponent(picked[0]) + '&after=' + encodeURIComponent(picked[1]) : '#'
    cmp.setAttribute('aria-disabled', String(!ok))
    $('compare-info').textContent = ok ? `${picked[0]} \u2192 ${picked[1]}` : 'select two profiles of the same kind (before first)'
    $('count').textContent = `${files.length} profile${files.length === 1 ? '' : 's'}`
  }

  function renderJobs (jobs) {
    const box = $('jobs')
    box.replaceChildren(...jobs.slice().reverse().map((j) => el('div', `#${j.id} pid ${j.pid} ${j.kind} ${j.seconds} s: ${j.state}\n${j.log}`.trim(), j.state === 'failed' ? 'err' : j.state === 'done' ? 'ok' : '')))
  }

  async function load () {
    try {
      const [files, jobs] = await Promise.all([fetch('api/files').then((r) => r.json()), fetch('api/jobs').then((r) => r.json())])
      $('dir').textContent = files.dir
      $('dir2').textContent = files.dir
      renderFiles(files.files)
      renderJobs(jobs.jobs)
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
    $('start-info').className = r.ok ? 'ok' : 'err'
    load()
  })
  $('compare').addEventListener('click', (ev) => { if ($('compare').getAttribute('aria-disabled') === 'true') ev.preventDefault() })
  load()
  setInterval(load, 1500)
})()
