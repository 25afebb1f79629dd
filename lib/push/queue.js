'use strict'
// The windows waiting for upload, bounded by bytes: when a new one does not
// fit, the oldest go first (an outage costs the oldest data, never memory).

/** maxBytes 0: no bound. Items are { bytes, … }. */
function createQueue (maxBytes) {
  const items = []
  let bytes = 0

  function remove (item) {
    const i = items.indexOf(item)
    if (i < 0) return false
    items.splice(i, 1)
    bytes -= item.bytes
    return true
  }

  /** Adds item; returns the items dropped to make room (oldest first). The
   * newest item is always kept, even alone above the bound. */
  function add (item) {
    const dropped = []
    while (maxBytes > 0 && items.length > 0 && bytes + item.bytes > maxBytes) {
      const old = items.shift()
      bytes -= old.bytes
      dropped.push(old)
    }
    items.push(item)
    bytes += item.bytes
    return dropped
  }

  /** Puts an item taken out (for upload) back in front, if it still fits;
   * returns [item] when it does not (it is the oldest). */
  function putBack (item) {
    if (maxBytes > 0 && items.length > 0 && bytes + item.bytes > maxBytes) return [item]
    items.unshift(item)
    bytes += item.bytes
    return []
  }

  return {
    add,
    putBack,
    remove,
    shift () {
      const item = items.shift()
      if (item) bytes -= item.bytes
      return item
    },
    clear () {
      const all = items.splice(0)
      bytes = 0
      return all
    },
    get length () { return items.length },
    get bytes () { return bytes }
  }
}

module.exports = { createQueue }
