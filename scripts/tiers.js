'use strict'
// lib/'s tiers, lowest first: the one place they are declared. A folder of
// lib/ (or a file directly in lib/) requires only units of its own tier or
// of a lower one, and no two folders require each other, even through
// others. scripts/check-cycles.js fails otherwise (and on a unit of lib/
// that no tier names); docs/architecture.md shows this list as
// `check-cycles.js --graph` prints it. Go's go/build deps_test.go is the model.
//
// A new folder or top-level file gets a tier here: the lowest one whose
// units are all it needs.
module.exports = [
  {
    tier: 'base',
    what: 'what every part stands on: errors, option checks, terminal text, directories, /proc, the addon, the result shape, profile files',
    units: ['errors.js', 'validate.js', 'term.js', 'dirs.js', 'procfs.js', 'stale-temps.js', 'native.js', 'result.js', 'own-time.js', 'options.js', 'files/']
  },
  {
    tier: 'identity',
    what: 'who this process is: the PM2 environment, its app name, instance and cluster role, its run-directory entry',
    units: ['identity/']
  },
  {
    tier: 'features',
    what: 'what a process does: profiles and snapshots, per-request labels, the pages they become, the recorder, push, incidents, triggers, node:cluster hand-offs',
    units: ['controller.js', 'snapshot.js', 'snapshot-report.js', 'labels/', 'viewer/', 'recorder/', 'push/', 'incidents/', 'triggers/', 'cluster/']
  },
  {
    tier: 'fleet',
    what: 'other processes, from outside: find, signal, attach, fan out',
    units: ['fleet/']
  },
  {
    tier: 'front ends',
    what: 'what people call: the API, the CLI, the dashboard, cprof run\'s preload',
    units: ['index.js', 'cli/', 'ui/', 'run/']
  }
]
