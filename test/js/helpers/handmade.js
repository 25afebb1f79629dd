'use strict'

// A small .cpuprofile with hand-computed answers, used to check both the JS
// reference and the native core (cprof.analyze) on the edge cases of the
// timing rule: a negative time delta, the last sample's weight, recursion.
//
//   (root) 1
//   ├── a 2                  (a.js:1:1)
//   │   └── a 4              (recursive: same function)
//   │       └── b 5          (b.js:3:5)
//   ├── (idle) 3
//   └── (garbage collector) 6
//
// samples    [2,   4,   5,  3,   5,  6,  2]
// timeDeltas [10, 100, 200, -5, 300, 50, 70]   sum 725
// weights    [100, 200, 0 (-5), 300, 50, 70, 40 (endTime - startTime - 725)]

function frame (functionName, url = '', lineNumber = -1, columnNumber = -1, scriptId = '0') {
  return { functionName, scriptId, url, lineNumber, columnNumber }
}

function handmadeProfile () {
  const a = () => frame('a', 'file:///app/a.js', 0, 0, '7')
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), hitCount: 0, children: [2, 3, 6] },
      { id: 2, callFrame: a(), hitCount: 2, children: [4] },
      { id: 4, callFrame: a(), hitCount: 1, children: [5] },
      { id: 5, callFrame: frame('b', 'file:///app/b.js', 2, 4, '8'), hitCount: 2 },
      { id: 3, callFrame: frame('(idle)'), hitCount: 1 },
      { id: 6, callFrame: frame('(garbage collector)'), hitCount: 1 }
    ],
    startTime: 1000000,
    endTime: 1000000 + 725 + 40,
    samples: [2, 4, 5, 3, 5, 6, 2],
    timeDeltas: [10, 100, 200, -5, 300, 50, 70]
  }
}

const HANDMADE = {
  // id: [self µs, total µs]
  nodes: { 1: [0, 760], 2: [140, 390], 4: [200, 250], 5: [50, 50], 3: [300, 300], 6: [70, 70] },
  // name: [self µs, total µs]
  functions: { '(root)': [0, 760], a: [340, 390], b: [50, 50], '(idle)': [300, 300], '(garbage collector)': [70, 70] },
  totalUs: 760,
  // [functionName, self ms, total ms, line, column] sorted by self
  top: [
    ['a', 0.34, 0.39, 1, 1],
    ['(garbage collector)', 0.07, 0.07, 0, 0],
    ['b', 0.05, 0.05, 3, 5]
  ]
}

module.exports = { handmadeProfile, HANDMADE }
