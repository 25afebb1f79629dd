'use strict'
// Who this process is in its fleet: the app's name, its PM2 id and instance
// (NODE_APP_INSTANCE), its node:cluster role. Read from the environment PM2
// and node:cluster set, and never by loading node:cluster (about 2 MB and
// 10 ms for a process that does not use it): a primary is a process that
// already loaded it and forked workers.
const path = require('node:path')
const { startEnv } = require('./pm2')

/** node:cluster, if this process loaded it; else null. */
function loadedCluster () {
  const list = process.moduleLoadList
  if (Array.isArray(list) && !list.includes('NativeModule cluster')) return null
  return require('node:cluster')
}

/** The live node:cluster workers of this process (a primary), else []. */
function clusterWorkers () {
  const cluster = loadedCluster()
  if (!cluster || !cluster.isPrimary) return []
  return Object.values(cluster.workers || {}).filter((w) => w && !w.isDead() && w.isConnected())
}

function underPm2 (env) {
  return env.pm_id !== undefined && env.pm_id !== ''
}

function scriptName () {
  const script = process.env.pm_exec_path || process.argv[1]
  if (!script) return 'node'
  return path.basename(script).replace(/\.(c|m)?js$/, '')
}

function appName (env) {
  if (env.CPROF_APP) return env.CPROF_APP
  if (underPm2(env) && env.name) return env.name
  const title = process.title
  if (title && title !== 'node' && !title.startsWith('/') && title !== process.execPath) return title
  return scriptName()
}

function intOrNull (v) {
  return v !== undefined && /^\d+$/.test(String(v)) ? Number(v) : null
}

/**
 * { app, pm2Id, instance, role, clusterWorkerId }: role 'pm2' (an instance
 * of a PM2 app), 'worker' (a node:cluster worker), 'primary' (a node:cluster
 * primary with live workers) or null.
 */
function identity (env = startEnv()) {
  const app = appName(env)
  if (underPm2(env)) {
    const instance = intOrNull(env[env.instance_var || 'NODE_APP_INSTANCE'])
    return { app, pm2Id: intOrNull(env.pm_id), instance, role: 'pm2', clusterWorkerId: null }
  }
  // Node loads node:cluster in a worker before the app runs, and removes
  // NODE_UNIQUE_ID from its environment.
  const cluster = loadedCluster()
  const workerId = cluster && cluster.isWorker && cluster.worker ? cluster.worker.id : null
  if (workerId !== null) return { app, pm2Id: null, instance: workerId, role: 'worker', clusterWorkerId: workerId }
  const role = clusterWorkers().length > 0 ? 'primary' : null
  return { app, pm2Id: null, instance: null, role, clusterWorkerId: null }
}

// A file-name-safe app name: letters, digits, '_' and '-' (so '.', which
// separates it from the instance, and '/' never occur), at most 64.
function safeName (app) {
  return String(app).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'app'
}

/**
 * What a profile file name carries of the fleet: '<app>.<instance>' in a
 * PM2 instance or a cluster worker, '<app>.primary' in a primary with
 * workers, '' elsewhere (a plain process keeps <kind>-<pid>-<stamp>).
 */
function fileTag (id = identity()) {
  if (id.role === 'primary') return `${safeName(id.app)}.primary`
  if (id.role === 'pm2' || id.role === 'worker') return `${safeName(id.app)}.${id.instance === null ? 'x' : id.instance}`
  return ''
}

module.exports = { identity, fileTag, safeName, clusterWorkers, loadedCluster }
