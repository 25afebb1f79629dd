'use strict'
// heap.snapshot(): a full .heapsnapshot through Node's own writer. V8 stops the
// app while it walks the heap; that is what a snapshot is. A snapshot holds
// every secret in the process, so no other user may see or redirect it while
// it is written: Node's writer creates the file inside a fresh private
// directory (mkdtemp, mode 0700) in the target directory; once complete it is
// made 0600 and renamed to its final name (rename replaces whatever entry is
// there, never writing through a symlink), and the private directory is
// removed.
const fs = require('node:fs')
const path = require('node:path')
const { fileName } = require('./controller')
const { cprofError } = require('./errors')
const { prepareDir } = require('./dirs')
const options = require('./options')

/**
 * @param {{dir?: string, name?: string}} [opts]
 * @returns {Promise<string>} the .heapsnapshot path
 */
async function snapshot (opts) {
  const o = options.snapshotOptions(opts)
  const file = path.join(o.dir, fileName('heap', 'heapsnapshot', o.name, Date.now()))
  await prepareDir(o.dir, o.ownDir)
  let priv
  try {
    priv = await fs.promises.mkdtemp(path.join(o.dir, '.cprof-snapshot-'))
    const tmp = path.join(priv, path.basename(file))
    require('node:v8').writeHeapSnapshot(tmp) // loaded on first use: it costs RSS
    await fs.promises.chmod(tmp, 0o600)
    await fs.promises.rename(tmp, file)
  } catch (err) {
    throw cprofError('ERR_CPROF_IO',
      `cannot write the heap snapshot to ${file}: ${err.message}. Check the directory is ` +
      'writable and the disk has room for about the size of the heap', { cause: err })
  } finally {
    if (priv) await fs.promises.rm(priv, { recursive: true, force: true }).catch(() => {})
  }
  return file
}

module.exports = { snapshot }
