'use strict'

// Readers for cprof's derived formats, built on parsers cprof did not write:
// pprof-format (DataDog's profile.proto codec) for .pb.gz, fast-xml-parser
// and xmllint (libxml2, when installed) for .svg. Folded stacks are plain
// text: "frame;frame;frame <count>" per line.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const zlib = require('node:zlib')
const { spawnSync } = require('node:child_process')
const { Profile } = require('pprof-format')
const { XMLParser, XMLValidator } = require('fast-xml-parser')

// pprof-format decodes large varints as BigInt, small ones as numbers.
const big = (v) => BigInt(v)

function decodePprof (file) {
  const gz = fs.readFileSync(file)
  assert.equal(gz[0], 0x1f, `${file}: gzip magic`)
  assert.equal(gz[1], 0x8b, `${file}: gzip magic`)
  const profile = Profile.decode(zlib.gunzipSync(gz))
  const strings = profile.stringTable.strings
  const str = (i) => strings[Number(i)]
  const types = profile.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`)
  const sums = types.map(() => 0n)
  let maxStack = 0
  for (const s of profile.sample) {
    assert.equal(s.value.length, types.length, 'one value per sample type')
    s.value.forEach((v, i) => { sums[i] += big(v) })
    assert.ok(s.locationId.length >= 1, 'every sample has a stack')
    maxStack = Math.max(maxStack, s.locationId.length)
  }
  // Every location names a function, every function names strings.
  const fnIds = new Set(profile.function.map((f) => Number(f.id)))
  for (const loc of profile.location) {
    assert.ok(loc.line.length >= 1, 'a location has a line')
    for (const line of loc.line) assert.ok(fnIds.has(Number(line.functionId)), `function ${line.functionId} exists`)
  }
  const locIds = new Set(profile.location.map((l) => Number(l.id)))
  for (const s of profile.sample) for (const id of s.locationId) assert.ok(locIds.has(Number(id)), `location ${id} exists`)
  const functions = profile.function.map((f) => ({
    id: Number(f.id),
    name: str(f.name),
    systemName: str(f.systemName),
    filename: str(f.filename),
    startLine: Number(f.startLine)
  }))
  return {
    profile,
    strings,
    types,
    sums,
    maxStack,
    functions,
    periodType: profile.periodType ? `${str(profile.periodType.type)}/${str(profile.periodType.unit)}` : null,
    period: big(profile.period),
    timeNanos: big(profile.timeNanos),
    durationNanos: big(profile.durationNanos)
  }
}

function readFolded (file) {
  const text = fs.readFileSync(file, 'utf8')
  assert.ok(text.endsWith('\n'), 'folded text ends with a newline')
  let sum = 0
  const lines = text.slice(0, -1).split('\n')
  const stacks = new Set()
  for (const line of lines) {
    const m = /^(.+) (\d+)$/.exec(line)
    assert.ok(m, `a folded line is "<stack> <count>": ${JSON.stringify(line)}`)
    assert.ok(!stacks.has(m[1]), `each stack once: ${m[1]}`)
    stacks.add(m[1])
    sum += Number(m[2])
  }
  return { text, lines, sum, stacks: [...stacks] }
}

let xmllint
function hasXmllint () {
  if (xmllint === undefined) xmllint = spawnSync('xmllint', ['--version']).status === 0
  return xmllint
}

// Validates an SVG with two XML parsers; returns the parsed tree's frames:
// [{ title, rect: { x, y, width, fill }, text }].
function readSvg (file) {
  const text = fs.readFileSync(file, 'utf8')
  const valid = XMLValidator.validate(text)
  assert.equal(valid, true, `${file} is well-formed XML: ${JSON.stringify(valid)}`)
  if (hasXmllint()) {
    const r = spawnSync('xmllint', ['--noout', file], { encoding: 'utf8' })
    assert.equal(r.status, 0, `xmllint --noout ${file}: ${r.stderr}`)
  }
  // Self-contained: nothing to fetch.
  assert.doesNotMatch(text, /\b(href|src)\s*=/, 'no external references')
  assert.doesNotMatch(text.replace(/xmlns="[^"]*"/g, ''), /https?:\/\//, 'no URLs but namespaces')
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'g' }).parse(text)
  const svg = doc.svg
  assert.ok(svg, 'the root element is <svg>')
  assert.ok(svg.script, 'an inline script')
  assert.ok(svg.style, 'an inline style')
  const frames = (svg.g || []).filter((g) => g.class === 'f').map((g) => ({
    title: String(g.title),
    rect: { x: Number(g.rect.x), y: Number(g.rect.y), width: Number(g.rect.width), fill: g.rect.fill },
    text: g.text === '' || g.text === undefined ? '' : String(g.text['#text'] ?? g.text),
    run: g['data-run']
  }))
  return { text, svg, frames, width: Number(svg.width), height: Number(svg.height) }
}

// pprof's one Mapping (id 1): it names the main script ('' when unknown) and
// says the locations are symbolized already, so pprof does not print "Main
// binary filename not available." nor look for a binary. Every location
// points at it.
function assertMainMapping (p, filename) {
  const m = p.profile.mapping
  assert.equal(m.length, 1, 'one mapping')
  assert.equal(Number(m[0].id), 1)
  assert.equal(p.strings[Number(m[0].filename)], filename, 'the mapping names the main script')
  assert.equal(m[0].hasFunctions, true)
  assert.equal(m[0].hasFilenames, true)
  assert.equal(m[0].hasLineNumbers, true)
  assert.ok(p.profile.location.length > 0)
  for (const loc of p.profile.location) assert.equal(Number(loc.mappingId), 1, `location ${loc.id} is in mapping 1`)
}

module.exports = { decodePprof, readFolded, readSvg, hasXmllint, assertMainMapping }
