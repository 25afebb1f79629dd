'use strict'
// What the incident measures are relative to: the container's CPU quota
// (cgroup v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us) and the V8
// old generation's limit (what an out-of-memory crash runs into).
const fs = require('node:fs')
const path = require('node:path')
const v8 = require('node:v8')

const MiB = 1024 * 1024

function readSmall (file) {
  try {
    return fs.readFileSync(file, 'utf8').trim()
  } catch {
    return null
  }
}

// /proc/self/cgroup: "0::/path" (v2) and "N:cpu,cpuacct:/path" (v1).
function cgroupPaths (text) {
  const out = { v2: null, v1: null }
  for (const line of (text || '').split('\n')) {
    const [, controllers, p] = /^\d+:([^:]*):(.*)$/.exec(line) || []
    if (p === undefined) continue
    if (controllers === '') out.v2 = p
    else if (controllers.split(',').includes('cpu')) out.v1 = p
  }
  return out
}

// v2 "max 100000" or "50000 100000"; v1 quota -1 means no limit.
function quotaOf (quota, period) {
  const q = Number(quota)
  const p = Number(period)
  return Number.isFinite(q) && Number.isFinite(p) && q > 0 && p > 0 ? q / p : null
}

/**
 * The CPU quota in cores (0.5: half a core), or null when none limits this
 * process. Read once, from small files; root is for tests.
 */
function cpuQuota (root = '/') {
  const paths = cgroupPaths(readSmall(path.join(root, 'proc/self/cgroup')))
  const fsRoot = path.join(root, 'sys/fs/cgroup')
  if (paths.v2 !== null) {
    for (const dir of [path.join(fsRoot, paths.v2), fsRoot]) {
      const text = readSmall(path.join(dir, 'cpu.max'))
      if (text) return quotaOf(...text.split(/\s+/))
    }
  }
  if (paths.v1 !== null) {
    for (const base of ['cpu', 'cpu,cpuacct', 'cpuacct,cpu']) {
      for (const dir of [path.join(fsRoot, base, paths.v1), path.join(fsRoot, base)]) {
        const quota = readSmall(path.join(dir, 'cpu.cfs_quota_us'))
        if (quota) return quotaOf(quota, readSmall(path.join(dir, 'cpu.cfs_period_us')))
      }
    }
  }
  return null
}

// The value of a V8 size flag (MiB) on the command line or in NODE_OPTIONS.
function flagMiB (name, argv, nodeOptions) {
  let value = null
  const words = [...(nodeOptions || '').split(/\s+/), ...argv]
  for (let i = 0; i < words.length; i++) {
    const w = words[i].replace(/_/g, '-')
    if (w === `--${name}` && i + 1 < words.length) value = Number(words[i + 1])
    else if (w.startsWith(`--${name}=`)) value = Number(w.slice(name.length + 3))
  }
  return Number.isFinite(value) && value > 0 ? value * MiB : null
}

// V8 reserves 3 semi-spaces for the young generation inside heap_size_limit.
// Measured default semi-space sizes (heap_size_limit - max-old-space-size):
// Node 20 and 22: 16 MiB; Node 24: 64 MiB; Node 26: 32 MiB. An unknown
// version assumes the largest, so the limit is never overestimated.
const SEMI_SPACE_MIB = { 20: 16, 22: 16, 24: 64, 26: 32 }

/**
 * The old generation's limit in bytes: --max-old-space-size when given,
 * else heap_size_limit minus the young generation's reserve.
 */
function oldGenerationLimit ({
  argv = process.execArgv, nodeOptions = process.env.NODE_OPTIONS,
  major = Number(process.versions.node.split('.')[0]), heapSizeLimit = v8.getHeapStatistics().heap_size_limit
} = {}) {
  const old = flagMiB('max-old-space-size', argv, nodeOptions)
  if (old !== null) return Math.min(old, heapSizeLimit)
  const semi = flagMiB('max-semi-space-size', argv, nodeOptions) ?? (SEMI_SPACE_MIB[major] ?? 64) * MiB
  return Math.max(heapSizeLimit - 3 * semi, heapSizeLimit / 2)
}

const YOUNG = new Set(['new_space', 'new_large_object_space'])

/** Bytes in use in the old generation (every space but the young ones). */
function oldGenerationUsed () {
  let used = 0
  for (const s of v8.getHeapSpaceStatistics()) if (!YOUNG.has(s.space_name)) used += s.space_used_size
  return used
}

module.exports = { cpuQuota, cgroupPaths, oldGenerationLimit, oldGenerationUsed, flagMiB }
