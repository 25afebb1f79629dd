'use strict'
// `cprof trigger <pid> --dump --last <s>`: a signal carries no value, so the
// CLI leaves the request in a file the process takes (reads and deletes)
// when the dump signal arrives: <tmpdir>/cprof-dump-<pid>.json, mode 0600,
// { "last": ms }, created exclusively and never through a symlink. The process
// only trusts a regular file of its own user, opened without following one.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { invalidArg } = require('./errors')

function requestPath (pid, tmpdir = os.tmpdir()) {
  return path.join(tmpdir, `cprof-dump-${pid}.json`)
}

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants

/**
 * The CLI side: writes the request (replacing a stale one) into a new file,
 * 0600, never through a symlink planted at the name.
 */
function put (pid, lastMs, tmpdir) {
  const file = requestPath(pid, tmpdir)
  try { fs.unlinkSync(file) } catch {}
  const fd = fs.openSync(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
  try {
    fs.writeFileSync(fd, JSON.stringify({ last: lastMs }) + '\n')
  } finally {
    fs.closeSync(fd)
  }
  return file
}

/**
 * The app side: the requested last (ms), or undefined; deletes the file.
 * Opened without following a symlink (nor waiting on a FIFO), then checked
 * on the open file, so nothing can be swapped in between.
 */
function take (pid) {
  const file = requestPath(pid)
  let fd
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (err) {
    if (err.code === 'ENOENT') return undefined
    try { fs.unlinkSync(file) } catch {}
    throw invalidArg(`ignoring the dump request ${file}: not a regular file of this process's user (${err.code})`)
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
      throw invalidArg(`ignoring the dump request ${file}: not a regular file of this process's user`)
    }
    const req = JSON.parse(fs.readFileSync(fd, 'utf8'))
    const last = req && req.last
    if (typeof last !== 'number' || !Number.isFinite(last) || last < 0) {
      throw invalidArg(`ignoring the dump request ${file}: "last" must be a number of ms >= 0`)
    }
    return last
  } finally {
    fs.closeSync(fd)
    try { fs.unlinkSync(file) } catch {}
  }
}

module.exports = { requestPath, put, take }
