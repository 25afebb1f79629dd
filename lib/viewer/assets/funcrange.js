// Where a function ends, read from its source text (the source pane,
// lines.js, shows it from its first line to its last). V8 gives where a
// function starts (the call frame's line and column: its parameter list);
// its body is the first { after that outside any ( or [, and it ends at
// the matching }. The scan skips strings, template literals (and the code
// in their ${}), comments and regular expression literals, so a brace in
// any of those does not count. JavaScript and what compiles to it with the
// same braces (TypeScript, JSX). 0 when no end is found (an arrow function
// with an expression body, text that does not parse so): the pane then
// shows the function up to its last sampled line.
const FUNC_SCAN_LINES = 20000 // how far a body is looked for

// A '/' here starts a regular expression (not a division) when what came
// before cannot end an operand.
const REGEX_AFTER = /(?:^|[(,=:[!&|?{};+\-*%<>~^]|\b(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await))$/

function functionEnd (lines, line, col) {
  const first = line - 1
  if (!(first >= 0 && first < lines.length)) return 0
  const s = lines.slice(first, first + FUNC_SCAN_LINES).join('\n')
  let i = col > 0 ? Math.min(col - 1, lines[first].length) : 0
  let ln = 0 // lines passed
  const stack = [] // open ( [ { and '${' of a template
  let body = -1 // the stack's depth inside the body's {
  let prev = '' // the code just before, for REGEX_AFTER
  const n = s.length
  // A template literal from i (after its `): to its end, or into a ${.
  const template = () => {
    for (; i < n; i++) {
      const c = s[i]
      if (c === '\\') { i++; continue }
      if (c === '\n') ln++
      else if (c === '`') { i++; return }
      else if (c === '$' && s[i + 1] === '{') { i += 2; stack.push('${'); return }
    }
  }
  while (i < n) {
    const c = s[i]
    if (c === '\n') { ln++; i++; continue }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue }
    if (c === '/' && s[i + 1] === '/') { const e = s.indexOf('\n', i); i = e < 0 ? n : e; continue }
    if (c === '/' && s[i + 1] === '*') {
      const e = s.indexOf('*/', i + 2)
      if (e < 0) return 0
      for (let k = i; k < e; k++) if (s[k] === '\n') ln++
      i = e + 2
      continue
    }
    if (c === '"' || c === "'") {
      for (i++; i < n && s[i] !== c && s[i] !== '\n'; i++) if (s[i] === '\\') i++
      i++
      prev = 'a'
      continue
    }
    if (c === '`') { i++; template(); prev = 'a'; continue }
    if (c === '/' && REGEX_AFTER.test(prev.slice(-8))) {
      let cls = false
      for (i++; i < n && s[i] !== '\n'; i++) {
        if (s[i] === '\\') { i++; continue }
        if (s[i] === '[') cls = true
        else if (s[i] === ']') cls = false
        else if (s[i] === '/' && !cls) break
      }
      i++
      while (i < n && /[a-z]/.test(s[i])) i++
      prev = 'a'
      continue
    }
    if (c === '(' || c === '[') stack.push(c)
    else if (c === ')' || c === ']') stack.pop()
    else if (c === '{') {
      stack.push('{')
      if (body < 0 && (stack.length === 1 || !(col > 0))) body = stack.length
    } else if (c === '}') {
      const top = stack.pop()
      if (top === '${') { i++; template(); prev = 'a'; continue }
      if (body >= 0 && stack.length === body - 1) return line + ln
    } else if (body < 0 && stack.length === 0) {
      if (c === ';') return 0 // a statement ended before any body began
      if (c === '=' && s[i + 1] === '>') {
        // An arrow function: a { next is its body, anything else an expression.
        let k = i + 2
        while (k < n && /\s/.test(s[k])) k++
        if (s[k] !== '{') return 0
      }
    }
    prev = (prev + c).slice(-8)
    i++
  }
  return 0
}

module.exports = { functionEnd }
