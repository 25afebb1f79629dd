'use strict'

// A deliberate memory leak for the heap demo, next to code that allocates
// just as much but lets it go, so a heap profile has to tell them apart:
//
//   retainSessions(n)  builds n session objects and keeps them forever in a
//                      module-level Map (nothing ever deletes from it): the leak
//   churnBuffers(n)    builds the same amount of scratch data per call and
//                      drops it: garbage, not a leak
//
// The leak view of a heap profile (cprof.heap.start() with the default
// includeCollected: false) keeps only the sampled objects still alive when it
// stops, so it puts retainSessions on top and barely shows churnBuffers; the
// GC-pressure view (includeCollected: true) shows both about equally.
//
// churnBuffers's "buffers" are plain JS arrays on purpose: a Buffer's bytes
// live outside V8's heap, where the sampling heap profiler does not look.
//
// handleLeak(req, res) is the server's /leak route: every request leaks
// SESSIONS_PER_REQUEST sessions and churns as much scratch data.

const SESSIONS_PER_REQUEST = 20
const ROLES = ['viewer', 'editor', 'admin', 'billing']

// The leak: module-level, only ever added to.
const sessions = new Map()
let nextId = 0

function retainSessions (n) {
  for (let i = 0; i < n; i++) {
    const id = ++nextId
    const session = {
      id,
      user: `user-${id % 997}@example.com`,
      token: `tok_${id.toString(36)}_${(id * 2654435761 >>> 0).toString(16)}`,
      role: ROLES[id % ROLES.length],
      createdAt: Date.now(),
      history: [id, id + 1, id + 2, id + 3, id + 4, id + 5, id + 6, id + 7],
      prefs: { theme: id % 2 === 0 ? 'dark' : 'light', lang: 'en', pageSize: 20 + (id % 5) }
    }
    sessions.set(id, session)
  }
  return sessions.size
}

// The same shapes and sizes as retainSessions, kept only for the call.
function churnBuffers (n) {
  const scratch = []
  for (let i = 0; i < n; i++) {
    const id = nextId + i + 1
    scratch[i] = {
      id,
      user: `user-${id % 997}@example.com`,
      token: `tok_${id.toString(36)}_${(id * 2654435761 >>> 0).toString(16)}`,
      role: ROLES[id % ROLES.length],
      createdAt: Date.now(),
      history: [id, id + 1, id + 2, id + 3, id + 4, id + 5, id + 6, id + 7],
      prefs: { theme: id % 2 === 0 ? 'dark' : 'light', lang: 'en', pageSize: 20 + (id % 5) }
    }
  }
  let checksum = 0
  for (const s of scratch) checksum = (checksum + s.history[7] + s.token.length) | 0
  return checksum
}

function sessionCount () {
  return sessions.size
}

// GET /leak → {"sessions":<count>,"checksum":<n>}
function handleLeak (req, res) {
  const count = retainSessions(SESSIONS_PER_REQUEST)
  const checksum = churnBuffers(SESSIONS_PER_REQUEST)
  const body = JSON.stringify({ sessions: count, checksum }) + '\n'
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

module.exports = { retainSessions, churnBuffers, sessionCount, handleLeak, SESSIONS_PER_REQUEST }
