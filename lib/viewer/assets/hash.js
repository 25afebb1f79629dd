// The page's state in the URL's hash: '&'-separated name=value parts
// (range=<from>-<to> or range=all, time.js; where=<key>=<value>, each
// URI-encoded, labels.js), each written here so a change of one keeps the
// others. Values are read as text and nothing else.

/** The raw (still encoded) values of the parts named name. */
function hashValues (name) {
  return location.hash.replace(/^#/, '').split('&').filter((p) => p.startsWith(name + '=')).map((p) => p.slice(name.length + 1))
}

/** Replaces the parts named name with values (raw: encoded by the caller); the page is built again from it. */
function setHashValues (name, values) {
  const keep = location.hash.replace(/^#/, '').split('&').filter((p) => p && !p.startsWith(name + '='))
  location.hash = [...keep, ...values.map((v) => `${name}=${v}`)].join('&')
}

module.exports = { hashValues, setHashValues }
