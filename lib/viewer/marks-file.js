'use strict'
// The viewer's marks beside a profile (docs/formats.md, "Viewer marks"):
// a recorder dump writes them as <stem>.marks.json next to its
// <stem>.cpuprofile/.heapprofile, which stays V8's format, and cprof html
// (and cprof ui's page) of that profile later reads them back, so the page
// opens as the dump-time page did. The file is JSON, the page's own shape.
const crypto = require('node:crypto')
const fs = require('node:fs')
const path = require('node:path')
const { removeStale } = require('../stale-temps')

const MAX_BYTES = 1 << 20 // the recorder's marks are a few KB (512 window ends at most)
// Marks nest 3 levels ({ heapWindows: { ends: [] } }); deeper is not ours,
// and JSON.stringify (and the page) recurse on it: 400,000 levels under
// MAX_BYTES ended cprof html with "Maximum call stack size exceeded".
const MAX_DEPTH = 16
const PROFILE_EXT = /\.(cpuprofile|heapprofile)$/i

/** <stem>.marks.json beside <stem>.cpuprofile or <stem>.heapprofile, or null. */
function marksPath (profile) {
  return PROFILE_EXT.test(profile) ? profile.replace(PROFILE_EXT, '.marks.json') : null
}

// A file written whole: a private temp file (0600, created exclusively)
// renamed into place, so a reader never sees it empty or half written
// (docs/reliability.md, files cprof creates). The temp files of writers
// killed mid-write are removed from the directory first (lib/stale-temps.js).
async function writeWhole (file, text) {
  await removeStale(path.dirname(file))
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`)
  await fs.promises.writeFile(tmp, text, { mode: 0o600, flag: 'wx' })
  try {
    await fs.promises.rename(tmp, file)
  } catch (err) {
    await fs.promises.rm(tmp, { force: true })
    throw err
  }
}

/** Writes marks (their JSON text) beside profile; resolves with the path. */
async function writeMarks (profile, text) {
  const file = marksPath(profile)
  await writeWhole(file, text + '\n')
  return file
}

// Why the marks beside profile cannot be used, or null when they can: a
// heap dump's series on a CPU profile (or the other way round) would be
// another dump's, one that had the same name.
function unfit (marks, heap) {
  if (!marks || typeof marks !== 'object' || Array.isArray(marks)) return 'not a JSON object'
  if (heap && (marks.windowEnds !== undefined || marks.instances !== undefined)) return 'the marks of a CPU profile'
  if (!heap && marks.heapWindows !== undefined) return 'the marks of a heap profile'
  return null
}

/**
 * The viewerMarks text of the marks beside profile, or undefined when there
 * are none (no file) or they cannot be used: then warn(message) is called
 * once and the page opens without them. Reads only a regular file (a
 * symbolic link is not followed) of at most MAX_BYTES, nested at most
 * MAX_DEPTH levels.
 */
function readMarks (profile, warn) {
  const file = marksPath(profile)
  if (!file) return undefined
  const ignore = (why) => { warn(`ignoring ${file}: ${why}; the page opens without its marks`); return undefined }
  let text
  try {
    text = readSmallFile(file)
  } catch (err) {
    return err.code === 'ENOENT' ? undefined : ignore(err.message)
  }
  if (nesting(text) > MAX_DEPTH) return ignore(`nested deeper than ${MAX_DEPTH} levels`)
  let marks
  try {
    marks = JSON.parse(text)
  } catch (err) {
    return ignore(`not JSON (${err.message})`)
  }
  const why = unfit(marks, /\.heapprofile$/i.test(profile))
  if (why) return ignore(why)
  try {
    return JSON.stringify(marks)
  } catch (err) { // nothing should get here past the checks above; still, a page without marks
    return ignore(err.message)
  }
}

// How deep the arrays and objects of JSON text nest (brackets inside
// strings not counted), read without recursion.
function nesting (text) {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) {
      inString = true
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return max
}

// The text of a regular file of at most max bytes. O_NOFOLLOW and fstat on
// the open file: a symbolic link, a FIFO or a device is refused, and no
// swap between a check and the read can change what is read.
function readSmallFile (file, max = MAX_BYTES) {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants
  let fd
  try {
    fd = fs.openSync(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (err) {
    if (err.code === 'ELOOP') throw new Error('a symbolic link, not a regular file')
    throw err
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile()) throw new Error('not a regular file')
    if (st.size > max) throw new Error(`larger than ${max} bytes`)
    const buf = Buffer.alloc(st.size)
    const n = fs.readSync(fd, buf, 0, st.size, 0)
    return buf.toString('utf8', 0, n)
  } finally {
    fs.closeSync(fd)
  }
}

module.exports = { writeWhole, marksPath, writeMarks, readMarks, readSmallFile, MAX_BYTES, MAX_DEPTH }
