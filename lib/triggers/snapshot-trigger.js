'use strict'
// A heap snapshot asked for from outside the app: `cprof trigger <pid>
// --snapshot` (a request in the run directory, then a signal: lib/triggers/
// dump-request.js) or `pm2 trigger <app> cprof:snapshot`. It goes through
// heap.snapshot() (lib/snapshot.js) into the configured directory, with the
// guard rails the API leaves to its caller (lib/snapshot.js's reserve and
// room, the heapGrowth incident's too): one snapshot at a time (V8 stops the app for
// each; a request while one is written is refused, ERR_CPROF_BUSY), and
// none when the free space of the target directory is below twice the heap
// in use (the file is 1.3-2.2 times its size; a full disk would hurt the app
// more than the missing snapshot, ERR_CPROF_NO_SPACE). The result goes where
// the other triggers' go: the 'profile' event (kind 'snapshot') and the
// run-directory entry.
const fs = require('node:fs')
const { cprofError } = require('../errors')
const { prepareDir } = require('../dirs')
const { reserve, room } = require('../snapshot')
const options = require('../options')

const busy = (why) => cprofError('ERR_CPROF_BUSY', `${why}: one at a time, each pauses the app; ask again once it is written`)
const noSpace = (why) => cprofError('ERR_CPROF_NO_SPACE', `no heap snapshot written: ${why}. Free disk space or point dir (CPROF_DIR) at a larger disk`)

/**
 * snapshot(opts): heap.snapshot(); hooks: { emitSnapshot(result, extra),
 * announcer }. Returns take(c, trigger, req) → Promise<result>, rejected
 * with the reason when refused or failed (also in the run-directory entry,
 * errors.snapshot); req: { id, dir? } of the request ({}: a PM2 action),
 * dir overriding c.dir.
 */
function createSnapshotTrigger (snapshot, hooks) {
  async function take (c, trigger, req) {
    const id = req.id || null
    const startTime = Date.now()
    const { release, why } = reserve() // before any await: a second request is refused at once
    try {
      if (!release) throw busy(why)
      const dir = req.dir !== undefined ? req.dir : c.dir
      const opts = dir !== undefined ? { dir } : undefined
      const o = options.snapshotOptions(opts)
      await prepareDir(o.dir, o.ownDir) // statfs needs it to exist; heap.snapshot() checks it again
      const full = await room(o.dir)
      if (full) throw noSpace(full)
      const file = await snapshot(opts)
      const result = { kind: 'snapshot', trigger, startTime, durationMs: Date.now() - startTime, bytes: (await fs.promises.stat(file)).size, files: { heapsnapshot: file } }
      hooks.emitSnapshot(result, { id, bytes: result.bytes })
      return result
    } catch (err) {
      hooks.announcer.failed('snapshot', err, { id })
      throw err
    } finally {
      if (release) release()
    }
  }

  return { take }
}

module.exports = { createSnapshotTrigger, noSpace }
