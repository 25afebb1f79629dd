// The page's state in the URL's hash: '&'-separated name=value parts
// (range=<from>-<to> or range=all, time.js; where=<key=value>, labels.js),
// each written here so a change of one keeps the others. Values are read
// as text and nothing else.

/** The parts named name, their values decoded (undecodable ones left out). */
function hashValues (name) {
  const out = []
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part.startsWith(name + '=')) continue
    try { out.push(decodeURIComponent(part.slice(name.length + 1))) } catch (_) {}
  }
  return out
}

/** Replaces the parts named name with values (encoded); the page is built again from it. */
function setHashValues (name, values) {
  const keep = location.hash.replace(/^#/, '').split('&').filter((p) => p && !p.startsWith(name + '='))
  location.hash = [...keep, ...values.map((v) => `${name}=${encodeURIComponent(v)}`)].join('&')
}

module.exports = { hashValues, setHashValues }
