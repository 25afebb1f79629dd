'use strict'
// recorder.start({ push }) options: where and how the recorder's windows go
// to a Grafana Pyroscope server (docs/pyroscope.md). Checked at start(), so
// a bad URL or label is ERR_CPROF_INVALID_ARG there, never a failure later.
const { invalidArg } = require('../errors')
const { invalid, isObject, validateKeys, validateString, validateNumber, TIMER_MAX_MS } = require('../validate')

const KEYS = ['url', 'app', 'labels', 'token', 'user', 'password', 'tenant', 'timeout', 'queueBytes',
  'maxSamples', 'maxProfileBytes']
const TIMEOUT_DEFAULT_MS = 10_000
const QUEUE_BYTES_DEFAULT = 8 * 1024 * 1024
// Pyroscope's default per-tenant limits (pkg/validation/limits.go:
// validation.max-profile-stacktrace-samples, validation.max-profile-size-bytes,
// the latter on the uncompressed size): a profile above either is rejected,
// so windows are split under them.
const MAX_SAMPLES_DEFAULT = 16_000
const MAX_PROFILE_BYTES_DEFAULT = 4 * 1024 * 1024
// Pyroscope's label rules (api/model/labelset/validate.go) and Prometheus':
// the stricter of the two, so a series is accepted by both checks.
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const APP_NAME = /^[a-zA-Z0-9_./-]+$/
// The `name` parameter's syntax (app{k=v,k=v}) cannot carry these in a value.
const VALUE_FORBIDDEN = /[,{}]/
const MAX_LABELS = 20
const MAX_NAME_LENGTH = 1024
const MAX_VALUE_LENGTH = 2048
// Set by cprof (labels.js) or by the server; a user label cannot replace them.
const RESERVED = ['service_name', 'app_name', 'pyroscope_spy', 'profile_id']

function stringOption (value, name) {
  return validateString(value, `push.${name}`)
}

// A number of unit >= min (and <= max).
function numberOption (value, name, min, unit, fallback, max = Infinity) {
  return validateNumber(value, `push.${name}`, { min, max, unit }, fallback)
}

/** The server's base URL (credentials taken out) and the credentials it held. */
function urlOption (value) {
  if (typeof value !== 'string' || value === '') {
    throw invalid('push.url must be the Pyroscope server\'s URL such as "http://localhost:4040"', value)
  }
  let u
  try {
    u = new URL(value)
  } catch {
    throw invalidArg(`push.url ${JSON.stringify(value.replace(/\/\/[^@/]*@/, '//…@').slice(0, 80))} is not a URL: ` +
      'give the Pyroscope server\'s address such as "http://localhost:4040"')
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw invalidArg(`push.url must be http: or https:, got ${u.protocol}`)
  }
  if (u.search || u.hash) throw invalidArg('push.url must not have a query or a fragment: cprof adds /ingest?…')
  const user = u.username ? decodeURIComponent(u.username) : undefined
  const password = u.password ? decodeURIComponent(u.password) : undefined
  u.username = ''
  u.password = ''
  return { url: u.href.replace(/\/+$/, ''), user, password }
}

function labelName (name) {
  if (!LABEL_NAME.test(name) || name.length > MAX_NAME_LENGTH) {
    throw invalidArg(`push.labels: ${JSON.stringify(name.slice(0, 40))} is not a valid label name ` +
      '(letters, digits and _, not starting with a digit, as Prometheus and Pyroscope require)')
  }
  if (name.startsWith('__') || RESERVED.includes(name)) {
    throw invalidArg(`push.labels: ${name} is reserved${name === 'service_name' ? ': set push.app instead' : ''}`)
  }
}

function labelValue (name, value) {
  if (typeof value !== 'string' || value === '' || value.length > MAX_VALUE_LENGTH || VALUE_FORBIDDEN.test(value)) {
    throw invalid(`push.labels.${name} must be a non-empty string of at most ${MAX_VALUE_LENGTH} characters ` +
      'without , { or } (Pyroscope\'s name syntax cannot carry them)', value)
  }
}

function labelsOption (value) {
  if (value === undefined) return {}
  if (!isObject(value)) throw invalid('push.labels must be an object of label names to string values', value)
  const entries = Object.entries(value)
  if (entries.length > MAX_LABELS) throw invalidArg(`push.labels: at most ${MAX_LABELS} labels, got ${entries.length}`)
  for (const [k, v] of entries) {
    labelName(k)
    labelValue(k, v)
  }
  return { ...value }
}

/** 'k=v,k=v' (CPROF_PUSH_LABELS) → { k: 'v', … }; checked by labelsOption. */
function parseLabels (text) {
  const out = {}
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=')
    if (eq <= 0) throw new Error(`"${part.slice(0, 40)}" is not name=value`)
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim()
  }
  return out
}

/**
 * push options → null (off) or { url, app?, labels, token?, user?, password?,
 * tenant?, timeout (ms), queueBytes, maxSamples, maxProfileBytes }.
 */
function pushOptions (value) {
  if (value === undefined || value === null || value === false) return null
  if (typeof value === 'string') value = { url: value }
  if (!isObject(value)) throw invalid('push must be the server\'s URL or { url, app, labels, … }', value)
  validateKeys(value, KEYS, 'for push')
  const { url, user: urlUser, password: urlPassword } = urlOption(value.url)
  const app = stringOption(value.app, 'app')
  if (app !== undefined && (!APP_NAME.test(app) || app.length > MAX_VALUE_LENGTH)) {
    throw invalidArg(`push.app ${JSON.stringify(app.slice(0, 40))} may hold only letters, digits and _ . - / ` +
      '(Pyroscope\'s service name rule)')
  }
  const token = stringOption(value.token, 'token')
  const user = stringOption(value.user, 'user') ?? urlUser
  const password = stringOption(value.password, 'password') ?? urlPassword
  if (password !== undefined && user === undefined) throw invalidArg('push.password is set but push.user is not')
  if (token !== undefined && user !== undefined) {
    // Grafana Cloud: user = the stack's instance id, token = its password.
    if (password !== undefined) throw invalidArg('push: set token or password with user, not both')
  }
  return {
    url,
    app,
    labels: labelsOption(value.labels),
    token: user === undefined ? token : undefined,
    user,
    password: user === undefined ? undefined : password ?? token,
    tenant: stringOption(value.tenant, 'tenant'),
    timeout: numberOption(value.timeout, 'timeout', 1, 'milliseconds', TIMEOUT_DEFAULT_MS, TIMER_MAX_MS), // a timer's delay
    queueBytes: numberOption(value.queueBytes, 'queueBytes', 0, 'bytes', QUEUE_BYTES_DEFAULT),
    maxSamples: Math.floor(numberOption(value.maxSamples, 'maxSamples', 1, 'samples', MAX_SAMPLES_DEFAULT)),
    maxProfileBytes: numberOption(value.maxProfileBytes, 'maxProfileBytes', 1024, 'bytes', MAX_PROFILE_BYTES_DEFAULT)
  }
}

/** What start() may return and status() may show: never a secret. */
function publicOptions (o) {
  if (!o) return null
  const { token, user, password, ...rest } = o
  return { ...rest, auth: token ? 'bearer' : user ? 'basic' : 'none' }
}

module.exports = {
  pushOptions,
  publicOptions,
  parseLabels,
  labelName,
  labelValue,
  APP_NAME,
  TIMEOUT_DEFAULT_MS,
  QUEUE_BYTES_DEFAULT,
  MAX_SAMPLES_DEFAULT,
  MAX_PROFILE_BYTES_DEFAULT
}
