'use strict'

// lib/validate.js: the one vocabulary of option checks. Each throws
// ERR_CPROF_INVALID_ARG naming the option and what was given; undefined
// is the fallback. Needs no addon.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const v = require('../../../lib/validate')

const invalid = (message) => ({ code: 'ERR_CPROF_INVALID_ARG', message })

test('describe: what a message shows of a value', () => {
  assert.equal(v.describe(null), 'null')
  assert.equal(v.describe(5), 'number 5')
  assert.equal(v.describe(true), 'boolean true')
  assert.equal(v.describe('x'.repeat(50)), `string "${'x'.repeat(40)}"`)
  assert.equal(v.describe([1]), 'array')
  assert.equal(v.describe({}), 'object')
  assert.equal(v.describe(undefined), 'undefined')
})

test('validateOptions: {} for none, a plain object with known keys only', () => {
  assert.deepEqual(v.validateOptions(undefined, ['a'], 'f()', 'f() takes an object'), {})
  assert.deepEqual(v.validateOptions(null, ['a'], 'f()', 'f() takes an object'), {})
  const o = { a: 1 }
  assert.equal(v.validateOptions(o, ['a', 'b'], 'f()', 'f() takes an object'), o)
  assert.throws(() => v.validateOptions([], ['a'], 'f()', 'f() takes an object'), invalid('f() takes an object, got array'))
  assert.throws(() => v.validateOptions({ c: 1 }, ['a', 'b'], 'f()', 'x'),
    invalid('unknown option "c" for f(); known options: a, b'))
  assert.throws(() => v.validateKeys({ c: 1 }, ['a'], 'in p', 'key'), invalid('unknown key "c" in p; known keys: a'))
})

test('validateBoolean and validateString', () => {
  assert.equal(v.validateBoolean(undefined, 'b', true), true)
  assert.equal(v.validateBoolean(false, 'b', true), false)
  assert.throws(() => v.validateBoolean(1, 'b'), invalid('b must be a boolean, got number 1'))
  assert.equal(v.validateString(undefined, 's', 'd'), 'd')
  assert.throws(() => v.validateString('', 'dir', undefined, 'a directory path'),
    invalid('dir must be a non-empty string (a directory path), got string ""'))
  assert.throws(() => v.validateString(3, 's'), invalid('s must be a non-empty string, got number 3'))
})

const LIMIT = 'and <= 2147483647 (about 24.8 days, the timer limit)'
test('validateMs: finite, >= 0 (> 0 when positive), at most the timer limit', () => {
  assert.equal(v.validateMs(undefined, 't', 7), 7)
  assert.equal(v.validateMs(0, 't'), 0)
  assert.equal(v.validateMs(2 ** 31 - 1, 't'), 2 ** 31 - 1)
  assert.throws(() => v.validateMs(-1, 't'), invalid(`t must be a finite number of milliseconds >= 0 ${LIMIT}, got number -1`))
  assert.throws(() => v.validateMs(Infinity, 't'), invalid(`t must be a finite number of milliseconds >= 0 ${LIMIT}, got number Infinity`))
  assert.throws(() => v.validateMs(0, 't', 1, { positive: true }), invalid(`t must be a finite number of milliseconds > 0 ${LIMIT}, got number 0`))
  assert.throws(() => v.validateMs(2 ** 31, 't'), invalid(`t must be a finite number of milliseconds >= 0 ${LIMIT}, got number 2147483648`))
})

test('validatePath: a non-empty string without NUL (issue 36)', () => {
  assert.equal(v.validatePath(undefined, 'dir', 'd'), 'd')
  assert.equal(v.validatePath('/tmp/x', 'dir'), '/tmp/x')
  assert.throws(() => v.validatePath('a\0b', 'dir', undefined, 'a directory path'),
    invalid('dir must not contain a NUL character (\\0): the path would end there, got string "a\\u0000b"'))
  assert.throws(() => v.validatePath('', 'dir', undefined, 'a directory path'),
    invalid('dir must be a non-empty string (a directory path), got string ""'))
})

test('validateInteger: an integer in [min, max]', () => {
  assert.equal(v.validateInteger(undefined, 'i', [1, 5], 'µs', 3), 3)
  assert.equal(v.validateInteger(5, 'i', [1, 5], 'µs'), 5)
  assert.throws(() => v.validateInteger(1.5, 'i', [1, 5], 'µs'), invalid('i must be an integer from 1 to 5 µs, got number 1.5'))
  assert.throws(() => v.validateInteger(6, 'i', [1, 5], 'µs'), invalid('i must be an integer from 1 to 5 µs, got number 6'))
})

test('validateNumber: bounds, above, integer, unit', () => {
  assert.equal(v.validateNumber(undefined, 'n', { min: 0 }, 9), 9)
  assert.equal(v.validateNumber(0, 'n', { min: 0, max: 1 }), 0)
  assert.throws(() => v.validateNumber(0, 'n', { min: 0, above: true, unit: 'ms' }), invalid('n must be a number of ms > 0, got number 0'))
  assert.throws(() => v.validateNumber(2, 'n', { min: 0, max: 1, unit: 'percent' }),
    invalid('n must be a number of percent >= 0 and <= 1, got number 2'))
  assert.throws(() => v.validateNumber(1.5, 'n', { min: 0, integer: true, unit: 'firings' }),
    invalid('n must be an integer of firings >= 0, got number 1.5'))
  assert.throws(() => v.validateNumber('1', 'n', { min: 0, max: 3, above: true }), invalid('n must be a number > 0 and <= 3, got string "1"'))
  assert.throws(() => v.validateNumber(NaN, 'n', { min: 0 }), invalid('n must be a number >= 0, got number NaN'))
})

test('envNumber: a variable\'s text as a number, or a plain error the caller prefixes', () => {
  assert.equal(v.envNumber(' 30 '), 30)
  assert.throws(() => v.envNumber(' '), { message: 'must be a number' })
  assert.throws(() => v.envNumber('1x'), { message: 'must be a number' })
})
