'use strict'
// When the app's start-up is over, for the eventLoopDelay watcher: loading
// the main module — the script node runs (process.argv[1]), or under PM2 the
// one its container loads (pm_exec_path) — is not a stall, however long its
// synchronous body takes. Launchers differ in when that happens: node loads
// a CommonJS main before the loop first turns; PM2's cluster container loads
// it in a callback after opening its log files (later ticks); an ES module
// graph loads over several turns and is then evaluated in one block.
const fs = require('node:fs')
const path = require('node:path')

// PM2's wrappers, which load the app's script (lib/ProcessContainer*.js).
const PM2_CONTAINER = /^ProcessContainer(Fork)?(Bun)?\.js$/

// 'done': the main module has been loaded; 'pending': it will be, later;
// 'unsure': it cannot be seen (an ES module, not in require.cache) — the
// watcher then takes the first long gap as its evaluation.
function createStartup ({ env = process.env, argv = process.argv, cache = require.cache, exitListeners = () => process.listeners('exit') } = {}) {
  let files = null // where require.cache keeps the main module (resolved once)
  let esm = null // under PM2: whether its container imports the script

  function mainFiles (main) {
    const abs = path.resolve(main)
    const out = [abs]
    try {
      out.push(require.resolve(abs)) // its extension, index.js, realpath: as node resolves it
    } catch {}
    return out
  }

  return function state () {
    // pm_exec_path only where PM2's container runs: a process the app
    // spawns (`pm2 start npm -- start`) inherits the variable, not the container.
    const inContainer = typeof argv[1] === 'string' && PM2_CONTAINER.test(path.basename(argv[1]))
    const pm2Main = inContainer && typeof env.pm_exec_path === 'string' && env.pm_exec_path !== '' ? env.pm_exec_path : null
    const main = pm2Main || argv[1]
    if (typeof main !== 'string' || main === '') return 'done' // node -e, the REPL: no main module
    if (files === null) files = mainFiles(main)
    // A timer tick never runs inside a synchronous module body: a CommonJS
    // main in the cache has finished loading.
    if (files.some((f) => cache[f] !== undefined)) return 'done'
    // Node's own ES module entry: its 'exit' listener is on until the graph
    // has been evaluated (and its top-level await settled).
    if (exitListeners().some((f) => f.name === 'handleProcessExit')) return 'unsure'
    if (pm2Main === null) return 'done' // node loaded the main itself: before the loop turned, or above
    // Under PM2 the container loads a CommonJS script later: it appears in
    // require.cache then. An ES module it imports never does.
    if (esm === null) esm = isESModule(pm2Main)
    return esm ? 'unsure' : 'pending'
  }
}

// PM2's own rule (ProcessUtils.isESModule): .mjs, or the nearest
// package.json says "type": "module".
function isESModule (file) {
  if (path.extname(file) === '.mjs') return true
  if (path.extname(file) === '.cjs') return false
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    try {
      return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).type === 'module'
    } catch (err) {
      if (err.code !== 'ENOENT') return false
    }
    if (path.dirname(dir) === dir) return false
  }
}

module.exports = { createStartup, isESModule }
