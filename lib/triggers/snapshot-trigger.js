'use strict'
// A heap snapshot asked for from outside the app: `cprof trigger <pid>
// --snapshot` (a request in the run directory, then a signal: lib/triggers/
// dump-request.js) or `pm2 trigger <app> cprof:snapshot`. It goes through
// heap.snapshot() (lib/snapshot.js) into the configured directory, with two
// guard rails the API leaves to its caller: one snapshot at a time (V8 stops
// the app for each; a second request while one is written is refused,
// ERR_CPROF_BUSY), and none when the heap in use is larger than the free
// space of the target directory (the file is about the heap's size or more;
// a full disk would hurt the app more than the missing snapshot,
// ERR_CPROF_NO_SPACE). The result goes where the other triggers' go: the
// 'profile' event (kind 'snapshot') and the run-directory entry.
const fs = require('node:fs')
const { cprofError } = require('../errors')
const { prepareDir } = require('../dirs')
const options = require('../options')

/**
 * Refuses (throws ERR_CPROF_NO_SPACE) when heapBytes do not fit in the
 * space dir's filesystem has free for this user; statfs: fs.statfsSync.
 */
function checkRoom (dir, heapBytes, statfs = fs.statfsSync) {
  let st
  try {
    st = statfs(dir)
  } catch {
    return // no statfs here: the write itself says when the disk is full
  }
  const free = st.bavail * st.bsize
  if (heapBytes > free) {
    throw cprofError('ERR_CPROF_NO_SPACE', `no heap snapshot written: the heap uses ${mb(heapBytes)} and ` +
      `${dir} has ${mb(free)} free; the snapshot file is about the size of the heap or larger. ` +
      'Free disk space or point dir (CPROF_DIR) at a larger disk')
  }
}

const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`

/**
 * snapshot(opts): heap.snapshot(); hooks: { emitSnapshot(result, extra),
 * announcer }. Returns take(c, trigger, req) → Promise<result>, rejected
 * with the reason when refused or failed (also in the run-directory entry,
 * errors.snapshot); req: { id, dir? } of the request ({}: a PM2 action),
 * dir overriding c.dir.
 */
function createSnapshotTrigger (snapshot, hooks) {
  let busySince = 0 // when the snapshot being written was asked for; 0: none

  async function write (dir, trigger, startTime) {
    const opts = dir !== undefined ? { dir } : undefined
    const o = options.snapshotOptions(opts)
    await prepareDir(o.dir, o.ownDir) // statfs needs it to exist; heap.snapshot() checks it again
    checkRoom(o.dir, require('node:v8').getHeapStatistics().used_heap_size)
    const file = await snapshot(opts)
    const bytes = fs.statSync(file).size
    return { kind: 'snapshot', trigger, startTime, durationMs: Date.now() - startTime, bytes, files: { heapsnapshot: file } }
  }

  async function take (c, trigger, req) {
    const id = req.id || null
    const startTime = Date.now()
    try {
      if (busySince) {
        throw cprofError('ERR_CPROF_BUSY', 'a heap snapshot is already being written (asked for at ' +
          `${new Date(busySince).toISOString()}): one at a time, each pauses the app; ask again once it is written`)
      }
      busySince = startTime
      let result
      try {
        result = await write(req.dir !== undefined ? req.dir : c.dir, trigger, startTime)
      } finally {
        busySince = 0
      }
      hooks.emitSnapshot(result, { id, bytes: result.bytes })
      return result
    } catch (err) {
      hooks.announcer.failed('snapshot', err, { id })
      throw err
    }
  }

  return { take }
}

module.exports = { createSnapshotTrigger, checkRoom }
