'use strict'
// The labels beside a CPU profile (docs/labels.md): <stem>.labels.json,
// one label set per sample of <stem>.cpuprofile, read back for the viewer
// (cprof html, cprof ui) so the page can filter every view by a label and
// show the top values, as the page written at stop does. Handed to the
// native job as { sets, samples } (src/addon/labels.c), which checks the
// count against the profile's samples.
const { sidecarPath } = require('../files/labels-sidecar')
const { readSmallFile } = require('./marks-file')

const MAX_BYTES = 256 * 1024 * 1024 // ~2-7 bytes a sample: tens of millions of samples
const MAX_SETS = 100000 // CPROF_LABEL_SETS_MAX (src/core/labelset.h)
const MAX_PAIRS = 64 // CPROF_LABEL_PAIRS_MAX

const labelsPath = sidecarPath // <stem>.labels.json beside <stem>.cpuprofile, or null

// Why the parsed sidecar cannot be used, or null.
function unfit (x) {
  if (!x || typeof x !== 'object' || x.version !== 1 || !Array.isArray(x.sets) || !Array.isArray(x.samples)) return 'not a labels file (version 1, sets, samples)'
  if (x.sets.length > MAX_SETS) return `more than ${MAX_SETS} label sets`
  for (const s of x.sets) {
    if (!s || typeof s !== 'object' || Array.isArray(s)) return 'a set is not an object of strings'
    const values = Object.values(s)
    if (values.length > MAX_PAIRS || values.some((v) => typeof v !== 'string' || v.includes('\0'))) return `a set is not an object of at most ${MAX_PAIRS} strings`
    if (Object.keys(s).some((k) => k.includes('\0'))) return 'a key holds NUL'
  }
  for (const id of x.samples) if (!Number.isInteger(id) || id < 0 || id >= x.sets.length) return `sample set ${id} is not in sets`
  return null
}

/**
 * The labels beside profile as the native job takes them, { sets: [[key,
 * value, ...], ...] (set 0: no labels), samples: Uint32Array }, or
 * undefined when there are none (no file) or they cannot be used: then
 * warn(message) is called once and the page opens without them.
 */
function readLabels (profile, warn) {
  const file = labelsPath(profile)
  if (!file) return undefined
  const ignore = (why) => { warn(`ignoring ${file}: ${why}; the page opens without its labels`); return undefined }
  let x
  try {
    x = JSON.parse(readSmallFile(file, MAX_BYTES))
  } catch (err) {
    return err.code === 'ENOENT' ? undefined : ignore(err.message)
  }
  const why = unfit(x)
  if (why) return ignore(why)
  // The core's set 0 is no labels; a file whose set 0 has some keeps them, one id up.
  const shift = Object.keys(x.sets[0] || {}).length ? 1 : 0
  const sets = (shift ? [{}, ...x.sets] : x.sets).map((s) => Object.entries(s).flat())
  const samples = new Uint32Array(x.samples.length)
  for (let i = 0; i < samples.length; i++) samples[i] = x.samples[i] + shift
  return { sets, samples }
}

/**
 * Runs job(extra) with { labels } when there are labels beside the
 * profile; a count the core finds is not this profile's (a stale file)
 * is warned about and the job run again without them.
 */
async function withLabels (profile, warn, job) {
  const labels = readLabels(profile, warn)
  if (!labels) return job({})
  try {
    return await job({ labels })
  } catch (err) {
    if (!/not this profile's labels/.test(String(err && err.message))) throw err
    warn(`ignoring ${labelsPath(profile)}: ${err.message}; the page opens without its labels`)
    return job({})
  }
}

module.exports = { labelsPath, readLabels, withLabels, MAX_BYTES }
