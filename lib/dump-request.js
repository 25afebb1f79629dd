'use strict'
// `cprof trigger <pid> --dump --last <s>`: a signal carries no value, so the
// CLI leaves the request in a file the process takes (reads and deletes)
// when the dump signal arrives: <tmpdir>/cprof-dump-<pid>.json, mode 0600,
// { "last": ms }. The process only trusts a regular file of its own user.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { invalidArg } = require('./errors')

function requestPath (pid, tmpdir = os.tmpdir()) {
  return path.join(tmpdir, `cprof-dump-${pid}.json`)
}

/** The CLI side: writes the request (replacing a stale one). */
function put (pid, lastMs, tmpdir) {
  const file = requestPath(pid, tmpdir)
  try { fs.unlinkSync(file) } catch {}
  fs.writeFileSync(file, JSON.stringify({ last: lastMs }) + '\n', { flag: 'wx', mode: 0o600 })
  return file
}

/** The app side: the requested last (ms), or undefined; deletes the file. */
function take (pid) {
  const file = requestPath(pid)
  let st
  try {
    st = fs.lstatSync(file)
  } catch {
    return undefined
  }
  try {
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
      throw invalidArg(`ignoring the dump request ${file}: not a regular file of this process's user`)
    }
    const req = JSON.parse(fs.readFileSync(file, 'utf8'))
    const last = req && req.last
    if (typeof last !== 'number' || !Number.isFinite(last) || last < 0) {
      throw invalidArg(`ignoring the dump request ${file}: "last" must be a number of ms >= 0`)
    }
    return last
  } finally {
    try { fs.unlinkSync(file) } catch {}
  }
}

module.exports = { requestPath, put, take }
