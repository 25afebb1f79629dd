'use strict'
// cprof ui [dir] [--port N]: a local dashboard over the profiles of a
// directory, served on 127.0.0.1 with an unguessable token in the URL.
const path = require('node:path')
const fs = require('node:fs')
const { command } = require('./kit')
const { defaultDir, unsafeOwn } = require('../dirs')
const { termSafe } = require('../term')

const ui = command({
  name: 'ui',
  usage: ['[dir] [--port N]'],
  positionals: [0, 1],
  about: `Serves a dashboard on 127.0.0.1 (never on other interfaces) and prints its URL,
which holds a random token: requests without it are refused (403). Keep the URL
to yourself. In the dashboard:
  - the .cpuprofile / .heapprofile files of dir (default: $CPROF_DIR, else
    ${defaultDir()}, which must be yours and private, as for writing;
    symbolic links in dir are neither listed nor opened), refreshed as new
    ones are written;
    open one in the HTML viewer (flame graph, top-down, bottom-up, flat), or
    select two of the same kind and compare them, or several of one kind and
    merge them (as cprof merge does) into the viewer;
  - the continuous recorder's windows in dir on a timeline;
  - the live processes that run cprof (as cprof ps lists them);
  - start a timed CPU or heap profile of a live process, chosen in that list
    or by pid, by signal (as cprof trigger --duration does); the file appears
    in the list when written.
Stop with Ctrl-C.`,
  options: [{ name: 'port', arg: 'N', type: 'count', max: 65535, shown: 'a free one', help: 'the port' }]
})

// Why dir may not be served, or null. The default directory (own) follows
// the writers' rules (lib/dirs.js): created 0700 if missing, else it must be
// a real directory of this user's that others cannot write, so the dashboard
// never shows (nor lets the user open) files another user planted there. A
// directory the user named must exist: a typo is not created.
async function unusable (dir, own) {
  if (own) {
    // Something already at the name (a file, a dangling symlink) fails
    // mkdir: lstat then says what it is.
    const made = await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 }).then(() => null, (err) => err)
    let st
    try {
      st = await fs.promises.lstat(dir)
    } catch (err) {
      return `cannot create directory ${dir}: ${(made || err).message}`
    }
    const bad = unsafeOwn(st)
    if (!bad) return null
    return `ERR_CPROF_IO: refusing to serve ${dir}: it ${bad}, so another user could have put ` +
      'files there or read them. Remove it, or name a directory you own: cprof ui DIR'
  }
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) return `${dir} is not a directory`
  return null
}

async function run (argv) {
  return ui.run(argv, {}, serve)
}

async function serve (a) {
  const named = a.positionals[0] ?? process.env.CPROF_DIR
  const dir = path.resolve(named || defaultDir())
  const bad = await unusable(dir, !named)
  if (bad) {
    process.stderr.write(`cprof ui: ${termSafe(bad)}\n`)
    return 1
  }
  const { createUiServer } = require('../ui/server')
  const server = await createUiServer({ dir, port: a.values.port ?? 0 })
  process.stdout.write(`cprof ui: serving ${termSafe(dir)}\n${server.url}\n`)
  await new Promise((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  await server.close()
  return 0
}

module.exports = { run, command: ui }
