// The page's title and its header figures ([label, value] pairs): a
// profile's (app.js) and a snapshot's (snapshot.js).
const { el } = require('./format')
function showHeader (title, pairs) {
  document.title = title + ' \u2014 cprof'
  document.getElementById('title').textContent = title
  const dl = document.getElementById('figures')
  for (const [k, v] of pairs) {
    const div = el('div')
    div.append(el('dt', '', k), el('dd', '', v))
    dl.appendChild(div)
  }
}

module.exports = { showHeader }
