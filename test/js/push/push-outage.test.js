'use strict'
// Push through long outages (lib/push/queue.js, client.js; docs/pyroscope.md):
// a receiver down for ~40 s then back, and one answering 503 for 32 s. What
// these check is cprof's own queue and backoff (which windows are kept,
// dropped, delivered after; how far apart the retries come), not how a Node
// major profiles: the windows they push are made on every major by
// push.test.js. So this file is in the files tier (helpers/test-files.js),
// run once on the system's Node: its 84 s of waiting, three times over, were
// 1.5 min of CI.

const { test, after } = require('node:test')
const assert = require('node:assert/strict')

const { receiver, closeReceivers, runApp, assertClean, isCpu, assertContiguous } = require('../helpers/push-app.js')
const { removeTmpDirs } = require('../helpers/util.js')

after(removeTmpDirs)
after(closeReceivers)

test('down for ~40 s then back: the windows in between are delivered after, within the queue bound', async () => {
  const r = await receiver()
  const small = await receiver()
  const apps = [
    // Light apps (2 ms of work every 40 ms): the windows, not their
    // samples, are what this test counts, and 52 s of CPU-bound work would
    // cost the suite ~20 CPU-s.
    runApp({ CPROF_PUSH_URL: r.url, APP_MS: '52000', APP_SLICE_MS: '2', APP_IDLE_MS: '40', APP_STOP: '1' }),
    // a queue of a few windows: the oldest are dropped, memory stays bounded
    runApp({ CPROF_PUSH_URL: small.url, CPROF_PUSH_QUEUE_BYTES: '4000', APP_MS: '52000', APP_SLICE_MS: '2', APP_IDLE_MS: '40', APP_STOP: '1' })
  ]
  await new Promise((resolve) => setTimeout(resolve, 4000))
  await Promise.all([r.down(), small.down()])
  const downAt = Date.now()
  await new Promise((resolve) => setTimeout(resolve, 40_000))
  await Promise.all([r.up(), small.up()])
  const upAt = Date.now()
  const [run, runSmall] = await Promise.all(apps)
  assertClean(run, 'outage')
  assertClean(runSmall, 'outage, small queue')

  const cpu = r.profiles.filter(isCpu)
  assertContiguous(cpu, 'outage')
  assert.equal(run.out.push.dropped, 0)
  assert.equal(run.out.push.pushed, cpu.length)
  const during = cpu.filter((p) => p.from * 1000 >= downAt && p.until * 1000 <= upAt - 1000)
  assert.ok(during.length >= 30, `${during.length} windows of the outage delivered`)
  assert.ok(during.every((p) => p.at >= upAt), 'windows of the outage arrived after it')
  assert.ok(run.out.push.retried >= 1)

  const s = runSmall.out.push
  assert.ok(s.dropped >= 20, JSON.stringify(s))
  assert.ok(s.queuedBytes <= 4000)
  const got = small.profiles.filter(isCpu)
  assert.equal(s.pushed, got.length)
  assert.ok(got.length < cpu.length, `${got.length} < ${cpu.length}`)
  // What the small queue held when the receiver first answered again: its
  // newest windows, as many as 4000 bytes hold (plus the one being sent
  // when the outage began, which may come first, older). The first retry
  // after the outage comes up to the backoff cap (10 s) after it: windows
  // made in that wait are queued too and may have pushed out every window
  // of the outage itself (a loaded CI machine), so the backlog is counted
  // from that first delivery, not from the moment the receiver came up.
  // The receiver notes a request when its handler runs, which on a loaded
  // machine can be seconds after the app took the window from its queue
  // (CI: over 1 s; two windows made in between were counted as queued). So
  // only windows made 5 s before that count as the backlog: still ~4 of the
  // ~9 the queue holds, where an unbounded queue would show ~40.
  const firstAt = Math.min(...got.filter((p) => p.at >= upAt).map((p) => p.at))
  const late = got.filter((p) => p.at >= upAt && p.until * 1000 <= firstAt - 5000)
  assert.ok(late.length >= 1, `queued windows delivered after the outage (first delivery ${firstAt - upAt} ms after it)`)
  const rawBytes = late.map((p) => p.raw)
  assert.ok(rawBytes.reduce((a, b) => a + b, 0) <= 4000 + Math.max(...rawBytes), `${rawBytes} bytes after the outage`)
  // Once the backlog has drained, nothing is lost: every window made from
  // 3 s after the outage on arrives, in order. (While it drains, a window
  // made during a slow upload can still push a queued one out: the bound
  // holds then too; seen on a loaded machine, a gap in the first seconds.)
  const fresh = got.filter((p) => p.from * 1000 >= upAt + 3000)
  assert.ok(fresh.length >= 2, `${fresh.length} windows after the drain`)
  assertContiguous(fresh, 'the windows after the drain')
})

// Issue 32: the backoff belongs to the endpoint. With a queue that holds one
// window, the failing window is dropped for a newer one at nearly every
// retry; the delay must keep growing anyway, up to the 10 s cap, not start
// again at 0.5–1 s with each new window.
test('a long outage with a queue that drops the failing windows: requests back off to the cap', async () => {
  const r = await receiver()
  r.set({ status: 503 })
  const run = await runApp({ CPROF_PUSH_URL: r.url, CPROF_PUSH_QUEUE_BYTES: '1', APP_MS: '32000', APP_SLICE_MS: '2', APP_IDLE_MS: '40' })
  assertClean(run, 'outage, one-window queue')
  const p = run.out.push
  assert.equal(p.pushed, 0)
  assert.ok(p.dropped >= 10, `windows were dropped: ${JSON.stringify(p)}`)
  const at = r.requests.map((q) => q.at)
  const gaps = at.slice(1).map((t, i) => t - at[i])
  // Attempt n + 1 waits at least half of min(10 s, 1 s·2^(n-1)) (the jitter
  // draws from the upper half): 0.5, 1, 2, 4, then 5 s and more.
  gaps.forEach((gap, i) => {
    const least = Math.min(10_000, 1000 * 2 ** i) / 2
    assert.ok(gap >= least - 50, `retry ${i + 1} came ${gap} ms after the one before, not ≥ ${least} ms: gaps ${gaps}`)
  })
  // Under 32 s from the first request: at most 8 waits (0.5 + 1 + 2 + 4 +
  // 5·4 = 27.5 s at the least), and at least 5 (1 + 2 + 4 + 8 + 10 = 25 s at
  // the most), the fifth already capped: 5–10 s.
  assert.ok(at.length >= 6 && at.length <= 9, `${at.length} requests in ${run.ms} ms (about one a second without the fix): gaps ${gaps}`)
  assert.ok(gaps.slice(4).every((gap) => gap >= 5000 - 50), `the later retries wait 5–10 s (the cap): gaps ${gaps}`)
})
