// Numbers for people: µs as ms or s, bytes as KiB/MiB/GiB, shares as %.
function fmtValue (v, unit) {
  if (unit === 'us') {
    const ms = v / 1000
    if (Math.abs(ms) >= 10000) return (ms / 1000).toFixed(2) + ' s'
    if (Math.abs(ms) >= 100) return ms.toFixed(0) + ' ms'
    return ms.toFixed(ms === 0 ? 0 : 1) + ' ms'
  }
  const a = Math.abs(v)
  if (a >= 1024 ** 3) return (v / 1024 ** 3).toFixed(2) + ' GiB'
  if (a >= 1024 ** 2) return (v / 1024 ** 2).toFixed(2) + ' MiB'
  if (a >= 1024) return (v / 1024).toFixed(1) + ' KiB'
  return v + ' B'
}

function fmtPct (part, whole) {
  if (!whole) return '0%'
  const p = 100 * part / whole
  return (p >= 10 || p === 0 ? p.toFixed(1) : p.toFixed(2)) + '%'
}

function fmtPts (d) {
  return (d > 0 ? '+' : d < 0 ? '\u2212' : '\u00b1') + Math.abs(d).toFixed(2) + ' pts'
}

function fmtCount (n) {
  return n.toLocaleString('en-US')
}

// An element with text only: profile names never become markup.
function el (tag, cls, text) {
  const e = document.createElement(tag)
  if (cls) e.className = cls
  if (text !== undefined) e.textContent = text
  return e
}

// A legend's entries, each a colour swatch and its text, appended to box.
function addSwatches (box, items) {
  for (const [colour, text] of items) {
    const s = el('span')
    const i = el('i')
    i.style.background = colour
    s.append(i, document.createTextNode(text))
    box.appendChild(s)
  }
}

// base64 of little-endian uint8, uint16 or uint32 values (export_html.c: the
// time order's nodes and weights, the labels' set ids).
function b64uints (s, bits) {
  let bytes
  if (typeof Uint8Array.fromBase64 === 'function') bytes = Uint8Array.fromBase64(s)
  else {
    const bin = atob(s)
    bytes = new Uint8Array(bin.length)
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i)
  }
  if (bits === 8) return bytes
  return bits === 16 ? new Uint16Array(bytes.buffer, 0, bytes.length >> 1) : new Uint32Array(bytes.buffer, 0, bytes.length >> 2)
}

module.exports = { addSwatches, b64uints, el, fmtCount, fmtPct, fmtPts, fmtValue }
