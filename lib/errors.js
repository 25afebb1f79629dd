'use strict'
// Errors with a stable `code`. Native errors already carry theirs.

function cprofError (code, message, props) {
  const err = new Error(message)
  err.code = code
  if (props) Object.assign(err, props)
  return err
}

const invalidArg = (message) => cprofError('ERR_CPROF_INVALID_ARG', message)

module.exports = { cprofError, invalidArg }
