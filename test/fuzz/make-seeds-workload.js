function fib (n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
const keep = []
function alloc (n) { for (let i = 0; i < n; i++) keep.push({ i, s: 'x'.repeat(i % 50) }) }
const end = Date.now() + 60
while (Date.now() < end) { fib(15); alloc(200) }
