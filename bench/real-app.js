'use strict'
// A real-app workload for the HTTP benches (issue 38 item 3): a small blog
// built the way a user would, from well-known npm packages rather than
// hand-written loops, so the profilers' cost is measured on the kind of code
// (many short functions, library dispatch, GC) a production app runs:
//
//   router           fastify 5 (find-my-way routing, hooks, reply pipeline)
//   templates        handlebars (a layout + partial, compiled once at start)
//   markdown         marked (each post's Markdown rendered on every request)
//   JSON schema      fastify response schemas (fast-json-stringify)
//   crypto           an ETag: sha1 of every reply body (onSend hook)
//
//   /              the index page: 40 post summaries through the templates
//   /post/:id      one post: its Markdown rendered by marked, in the layout
//   /api/posts     40 posts as JSON through a response schema
//   /api/post/:id  one post with its comments as JSON through a response schema
//
// Nothing is cached between requests (the renders are the work). The
// packages are devDependencies; bench/http-child.js loads this module for
// `--app real` (bench/recorder.js). start({ port, host }) resolves to
// { server (the http.Server, for 'request' counting), port, close() }.
const crypto = require('node:crypto')

const ROUTES = ['/', '/post/7', '/api/posts', '/post/23', '/api/post/11']

const WORDS = ('lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor ' +
  'incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ' +
  'ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit').split(' ')

function words (seed, n) {
  const out = []
  for (let i = 0; i < n; i++) out.push(WORDS[(seed * 31 + i * 17) % WORDS.length])
  return out.join(' ')
}

// A post's Markdown: headings, emphasis, links, lists, a code block, a
// table and a quote, so marked's block and inline lexers all run.
function markdownOf (id) {
  const parts = [`# Post ${id}: ${words(id, 5)}\n`]
  for (let s = 0; s < 4; s++) {
    parts.push(`## ${words(id + s, 3)}\n`)
    parts.push(`${words(id * 3 + s, 40)} **${words(s, 2)}** and _${words(id + 1, 2)}_, see ` +
      `[the docs](https://example.com/docs/${id}/${s}) or \`code${s}()\`.\n`)
    parts.push(['- ' + words(s, 6), '- ' + words(s + 1, 7), '- ' + words(s + 2, 5)].join('\n') + '\n')
    parts.push('```js\nfunction f' + s + ' (x) {\n  return x * ' + (id + s) + '\n}\n```\n')
    parts.push(`> ${words(id + s + 7, 20)}\n`)
    parts.push('| key | value |\n| --- | --- |\n' +
      Array.from({ length: 4 }, (_, k) => `| ${words(k + s, 1)} | ${(id * k + s) % 97} |`).join('\n') + '\n')
  }
  return parts.join('\n')
}

const POSTS = Array.from({ length: 40 }, (_, i) => ({
  id: i,
  title: `Post ${i}: ${words(i, 5)}`,
  author: { name: `author${i % 7}`, email: `author${i % 7}@example.com` },
  tags: WORDS.slice(i % 10, (i % 10) + 1 + (i % 4)),
  published: new Date(Date.UTC(2026, i % 12, 1 + (i % 28))).toISOString(),
  summary: words(i * 7, 30),
  markdown: markdownOf(i),
  comments: Array.from({ length: 12 }, (_, k) => ({
    id: i * 100 + k, author: `reader${(i + k) % 13}`, body: words(i + k, 25), score: (i * 7 + k * 3) % 50
  }))
}))

const LAYOUT = `<!doctype html>
<html><head><title>{{title}}</title></head>
<body>
<header><nav>{{#each nav}}<a href="{{href}}">{{label}}</a> {{/each}}</nav></header>
<main>{{{body}}}</main>
<footer>{{year}} · {{posts.length}} posts</footer>
</body></html>`
const INDEX = `<h1>{{title}}</h1>
<ul class="posts">
{{#each posts}}<li>{{> summary this}}</li>
{{/each}}</ul>`
const SUMMARY = `<article><h2><a href="/post/{{id}}">{{title}}</a></h2>
<p class="meta">by {{author.name}} on {{published}}{{#if tags.length}} · {{#each tags}}<span class="tag">{{this}}</span>{{/each}}{{/if}}</p>
<p>{{summary}}</p></article>`
const POST = `<article><p class="meta">by {{post.author.name}} on {{post.published}}</p>
{{{html}}}
<section class="comments">{{#each post.comments}}<div class="comment"><b>{{author}}</b> ({{score}}): {{body}}</div>{{/each}}</section>
</article>`

const AUTHOR = { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' } } }
const POST_SUMMARY = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    title: { type: 'string' },
    author: AUTHOR,
    tags: { type: 'array', items: { type: 'string' } },
    published: { type: 'string' },
    summary: { type: 'string' }
  }
}
const POST_FULL = {
  type: 'object',
  properties: {
    ...POST_SUMMARY.properties,
    markdown: { type: 'string' },
    comments: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'integer' }, author: { type: 'string' }, body: { type: 'string' }, score: { type: 'integer' } }
      }
    }
  }
}

function etagOf (body) {
  return '"' + crypto.createHash('sha1').update(body).digest('base64url') + '"'
}

function build () {
  const Fastify = require('fastify')
  const Handlebars = require('handlebars')
  const { marked } = require('marked')

  const hbs = Handlebars.create()
  hbs.registerPartial('summary', SUMMARY)
  const layout = hbs.compile(LAYOUT)
  const index = hbs.compile(INDEX)
  const post = hbs.compile(POST)
  const nav = [{ href: '/', label: 'Home' }, { href: '/api/posts', label: 'API' }, { href: '/about', label: 'About' }]
  const page = (title, body) => layout({ title, body, nav, year: 2026, posts: POSTS })

  const app = Fastify({ logger: false, keepAliveTimeout: 1000 })
  app.addHook('onSend', async (req, reply, payload) => {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) reply.header('etag', etagOf(payload))
    return payload
  })
  app.get('/', async (req, reply) => {
    reply.type('text/html; charset=utf-8')
    return page('All posts', index({ title: 'All posts', posts: POSTS }))
  })
  app.get('/post/:id', async (req, reply) => {
    const p = POSTS[Number(req.params.id)]
    if (!p) return reply.code(404).send('not found')
    reply.type('text/html; charset=utf-8')
    return page(p.title, post({ post: p, html: marked.parse(p.markdown) }))
  })
  app.get('/api/posts', { schema: { response: { 200: { type: 'object', properties: { total: { type: 'integer' }, posts: { type: 'array', items: POST_SUMMARY } } } } } },
    async () => ({ total: POSTS.length, posts: POSTS }))
  app.get('/api/post/:id', { schema: { response: { 200: POST_FULL } } }, async (req, reply) => {
    const p = POSTS[Number(req.params.id)]
    if (!p) return reply.code(404).send({ error: 'not found' })
    return p
  })
  return app
}

async function start ({ port = 0, host = '127.0.0.1' } = {}) {
  const app = build()
  await app.listen({ port, host })
  return { server: app.server, port: app.server.address().port, close: () => app.close() }
}

module.exports = { start, build, ROUTES }

if (require.main === module) {
  start({ port: process.env.PORT === undefined ? 3000 : Number(process.env.PORT), host: '0.0.0.0' })
    .then(({ port }) => console.log(`listening on http://localhost:${port}`))
}
