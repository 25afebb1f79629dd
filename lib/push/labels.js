'use strict'
// The series a process pushes to: its app (Pyroscope's service_name) and
// labels, written as the ingest API's `name` parameter, app{k=v,k=v}, which
// grafana/pyroscope's labelset.Parse reads (api/model/labelset/labelset.go).
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { isMainThread, threadId } = require('node:worker_threads')
const { startEnv } = require('../identity/pm2')
const { APP_NAME } = require('./options')

// Anything outside Pyroscope's service name characters becomes _.
function cleanApp (name) {
  const s = String(name).replace(/[^a-zA-Z0-9_./-]/g, '_').slice(0, 200)
  return APP_NAME.test(s) ? s : 'node'
}

function cleanValue (value) {
  return String(value).replace(/[,{}]/g, '_').slice(0, 2048) || '_'
}

// The name of the package.json nearest above the main script (read once, at
// recorder.start()).
function packageName (script) {
  let dir = path.dirname(path.resolve(script))
  for (;;) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'))
      if (pkg && typeof pkg.name === 'string' && pkg.name !== '') return pkg.name
    } catch {
      // none here, or not JSON: look further up
    }
    const up = path.dirname(dir)
    if (up === dir) return null
    dir = up
  }
}

/**
 * The default app name: the PM2 app's name, else the main script's
 * package.json name, else the script's base name without extension.
 */
function defaultApp (env = startEnv()) {
  if (env.pm_id !== undefined && typeof env.name === 'string' && env.name !== '') return cleanApp(env.name)
  const script = env.pm_exec_path || process.argv[1]
  if (typeof script !== 'string' || script === '') return 'node'
  const pkg = packageName(script)
  if (pkg) return cleanApp(pkg.replace(/^@/, ''))
  return cleanApp(path.basename(script).replace(/\.[cm]?[jt]s$/, ''))
}

/**
 * The labels every window carries: instance (PM2's NODE_APP_INSTANCE, else
 * the pid), hostname, node_version, thread (worker threads only), then the
 * user's, which win.
 */
function defaultLabels (env = startEnv()) {
  const instance = env.pm_id !== undefined && env.NODE_APP_INSTANCE !== undefined && env.NODE_APP_INSTANCE !== ''
    ? env.NODE_APP_INSTANCE
    : String(process.pid)
  const labels = {
    instance: cleanValue(instance),
    hostname: cleanValue(os.hostname()),
    node_version: cleanValue(process.versions.node)
  }
  if (!isMainThread) labels.thread = String(threadId)
  return labels
}

/** { app, labels } → 'app{k=v,…}', names sorted (Pyroscope's normal form). */
function seriesName (app, labels) {
  const names = Object.keys(labels).sort()
  return `${app}{${names.map((k) => `${k}=${labels[k]}`).join(',')}}`
}

/** The series of this process: { app, labels, name }. */
function series (o, env = startEnv()) {
  const app = o.app || defaultApp(env)
  const labels = { ...defaultLabels(env), ...o.labels }
  return { app, labels, name: seriesName(app, labels) }
}

module.exports = { series, seriesName, defaultApp, defaultLabels }
