'use strict'
// heap.snapshot(): a full .heapsnapshot through Node's own writer. V8 stops the
// app while it walks the heap; that is what a snapshot is. The file appears
// under its final name only once complete (temp name + rename), mode 0600.
const fs = require('node:fs')
const path = require('node:path')
const { fileName } = require('./controller')
const { cprofError } = require('./errors')
const options = require('./options')

/**
 * @param {{dir?: string, name?: string}} [opts]
 * @returns {Promise<string>} the .heapsnapshot path
 */
async function snapshot (opts) {
  const o = options.snapshotOptions(opts)
  const file = path.join(o.dir, fileName('heap', 'heapsnapshot', o.name, Date.now()))
  const tmp = path.join(o.dir, `.${path.basename(file)}.${process.pid}.tmp`)
  try {
    await fs.promises.mkdir(o.dir, { recursive: true, mode: 0o700 })
    require('node:v8').writeHeapSnapshot(tmp) // loaded on first use: it costs RSS
    await fs.promises.chmod(tmp, 0o600)
    await fs.promises.rename(tmp, file)
  } catch (err) {
    await fs.promises.rm(tmp, { force: true }).catch(() => {})
    throw cprofError('ERR_CPROF_IO',
      `cannot write the heap snapshot to ${file}: ${err.message}. Check the directory is ` +
      'writable and the disk has room for about the size of the heap', { cause: err })
  }
  return file
}

module.exports = { snapshot }
