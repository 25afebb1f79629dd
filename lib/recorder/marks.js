'use strict'
// A recorder dump's viewer marks (docs/formats.md, "Viewer marks"): what the
// html page shows besides the profile (its end on the wall clock, an
// incident's reason, the windows' edges, a heap dump's live heap per
// window), passed to the native writer and kept beside the profile.
const native = require('../native')
const { writeMarks } = require('../viewer/marks-file')

// Facts for the html viewer (docs/formats.md, "Viewer marks"): the wall
// clock at the profile's end (the window rotated just now), which places
// the rest on its timeline; an incident's reason; the windows' edges (the
// page keeps those inside the profile).
function viewerMarks (extra, endAt, ends, heapWins) {
  const marks = { endAt }
  if (extra && extra.reason) marks.reason = extra.reason
  if (ends && ends.length) marks.windowEnds = ends.filter((t) => t < endAt)
  if (heapWins) marks.heapWindows = heapWins
  return marks.reason || marks.windowEnds || marks.heapWindows ? { viewerMarks: JSON.stringify(marks) } : {}
}

// The marks beside the profile too (<stem>.marks.json), for a page made
// from it later (cprof html, cprof ui). The profile is written: a marks
// file that cannot be is reported, and the dump still resolves.
async function keepMarks (result, profile, text, report) {
  try {
    result.files.marks = await writeMarks(profile, text)
  } catch (err) {
    report(Object.assign(new Error(`cannot write the viewer marks beside ${profile}: ${err.message}; ` +
      'the dump is written, its page made later shows no reason or window edges'), { code: 'ERR_CPROF_IO' }))
  }
}

// A heap dump's history: the live bytes at the end of each of the last
// heap windows (the heap trend's series, up to trendWindows of them, the
// dumped window last), which the page draws as its overview. V8's
// .heapprofile has no time order; this is the heap's over time.
function heapWindows (endAt) {
  const s = native.recStatus()
  const t = s && s.heap && s.heap.trend
  if (!t || !Array.isArray(t.times) || !Array.isArray(t.heapSeries)) return null
  const ends = []; const live = []
  t.times.forEach((end, i) => {
    if (end <= endAt && Number.isFinite(t.heapSeries[i])) { ends.push(end); live.push(t.heapSeries[i]) }
  })
  return ends.length ? { ends, live } : null
}

module.exports = { viewerMarks, heapWindows, keepMarks }
