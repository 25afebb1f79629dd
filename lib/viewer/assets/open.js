// Where the top-down tree opens: along the heaviest path from the root
// until it reaches the application's code, then on while one child holds
// most of its parent's time (a chain), stopping where it branches. A
// `node --cpu-prof` file spends its first 10-20 levels in Node's module
// loader; a fixed depth showed only that. (idle), (program) and GC are
// skipped at the root: waiting is not where the app is.
const OPEN_CHAIN_SHARE = 0.5 // a child under half its parent's time: a branch

function isUserCode (m, f) {
  const k = m.fns.kind[f]
  return k === 0 // application (1: node_modules, 2: Node.js, 3: native, 4: idle)
}

function isSpecial (m, f) {
  return !m.fns.url[f] && /^\((idle|program|garbage collector)\)$/.test(m.fns.name[f])
}

// The keys of the nodes to expand (the last one's children are shown), and
// the node to show the tree from when that path is deeper than the view's
// level bound (null otherwise).
function openPath (m, maxLevels) {
  const t = m.total[m.main]
  const keys = []
  let reached = false // on or under the application's code
  for (let i = 0; m.end[i] > i + 1;) {
    keys.push(String(i))
    const kids = m.kidsOf(i, 'heavy').filter((c) => i !== 0 || !isSpecial(m, m.fn[c]))
    const top = kids[0]
    if (top === undefined || !(t[top] > 0)) break
    if (isUserCode(m, m.fn[i])) reached = true
    // Above the app (Node's loader, timers, a framework) the path is
    // followed whatever the branching: the app's code is what the reader
    // came for. Once there, a branch is the place to stop.
    if (reached && t[top] < OPEN_CHAIN_SHARE * t[i]) break
    i = top
  }
  const last = Number(keys[keys.length - 1] || 0)
  let top = null
  if (m.depth[last] >= maxLevels - 1) {
    top = last
    for (let k = 0; k < maxLevels / 2; k++) top = m.parent[top]
  }
  return { keys, top }
}

module.exports = { openPath }
