'use strict'

// Checks the links of Markdown files the way GitHub renders them: every
// relative link or image names a file that exists, every #anchor names a
// heading (GitHub's slug, numbered -1, -2 for repeats) or an HTML id/name
// in the target file, and every `src/…`-style path written in code names a
// file that exists, so docs do not go stale when files move. Links with a
// scheme (https:, mailto:) are not fetched.
//
// markdown-it gives the tokens (headings, links, images, inline HTML);
// github-slugger gives GitHub's heading ids. It is an ES module: load() it
// once with import() before calling check().

const fs = require('node:fs')
const path = require('node:path')
const MarkdownIt = require('markdown-it')

const md = new MarkdownIt({ html: true })

// Paths in code spans that must exist: repository folders, no placeholders,
// nothing under a dot folder (.cache/ and the like are made by runs).
const CODE_PATH = /^(?:src|lib|test|bench|scripts|examples|bin|docs)(?:\/[\w-][\w.-]*)+\/?$/

let GithubSlugger = null
async function load () {
  if (!GithubSlugger) GithubSlugger = (await import('github-slugger')).default
}

// The heading's text as GitHub slugs it: text and code, no markup.
function plainText (inline) {
  return (inline.children || [])
    .filter((t) => t.type === 'text' || t.type === 'code_inline')
    .map((t) => t.content)
    .join('')
}

function htmlAttrs (html, name) {
  const re = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'gi')
  return [...html.matchAll(re)].map((m) => m[1] ?? m[2])
}

// { anchors: Set, links: [{ href, line }], codePaths: [{ path, line }] }
function scan (text) {
  if (!GithubSlugger) throw new Error('docs-links: call load() first')
  const slugger = new GithubSlugger()
  const anchors = new Set()
  const links = []
  const codePaths = []
  const tokens = md.parse(text, {})
  let lastLine = 1 // of the last token with a map: a table cell's inline token has none
  const html = (t, line) => {
    for (const id of [...htmlAttrs(t.content, 'id'), ...htmlAttrs(t.content, 'name')]) anchors.add(id)
    for (const href of [...htmlAttrs(t.content, 'href'), ...htmlAttrs(t.content, 'src')]) links.push({ href, line })
  }
  tokens.forEach((t, i) => {
    if (t.map) lastLine = t.map[0] + 1
    if (t.type === 'heading_open') anchors.add(slugger.slug(plainText(tokens[i + 1])))
    if (t.type === 'html_block') html(t, lastLine)
    if (t.type !== 'inline') return
    const line = lastLine
    for (const c of t.children || []) {
      if (c.type === 'link_open') links.push({ href: c.attrGet('href'), line })
      if (c.type === 'image') links.push({ href: c.attrGet('src'), line })
      if (c.type === 'html_inline') html(c, line)
      if (c.type === 'code_inline' && CODE_PATH.test(c.content)) codePaths.push({ path: c.content, line })
    }
  })
  return { anchors, links, codePaths }
}

/**
 * Checks `files` (paths relative to `root`). Returns the problems found, one
 * string each, "file:line: what is wrong" (the line where the paragraph or
 * table row starts); [] when every link works.
 */
function check (root, files) {
  const scans = new Map()
  const scanOf = (abs) => {
    if (!scans.has(abs)) scans.set(abs, scan(fs.readFileSync(abs, 'utf8')))
    return scans.get(abs)
  }
  const problems = []
  for (const file of files) {
    const abs = path.resolve(root, file)
    const { links, codePaths } = scanOf(abs)
    for (const { href, line } of links) {
      const where = `${file}:${line}`
      if (!href) { problems.push(`${where}: empty link`); continue }
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue // external
      const hash = href.indexOf('#')
      const target = decodeURIComponent(hash < 0 ? href : href.slice(0, hash))
      const anchor = hash < 0 ? null : decodeURIComponent(href.slice(hash + 1))
      const dest = target ? path.resolve(path.dirname(abs), target) : abs
      if (path.relative(root, dest).startsWith('..')) {
        problems.push(`${where}: ${href}: leaves the repository`)
        continue
      }
      if (!fs.existsSync(dest)) {
        problems.push(`${where}: ${href}: no such file ${path.relative(root, dest)}`)
        continue
      }
      if (anchor === null) continue
      if (!dest.endsWith('.md')) {
        problems.push(`${where}: ${href}: an #anchor into a file that is not Markdown`)
      } else if (!scanOf(dest).anchors.has(anchor)) {
        problems.push(`${where}: ${href}: ${path.relative(root, dest)} has no heading or id "${anchor}"`)
      }
    }
    for (const { path: p, line } of codePaths) {
      if (!fs.existsSync(path.join(root, p))) problems.push(`${file}:${line}: \`${p}\`: no such file`)
    }
  }
  return problems
}

// README.md and every .md under docs/, relative to root.
function docFiles (root) {
  const out = ['README.md']
  const walk = (dir) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name)
      if (e.isDirectory()) walk(rel)
      else if (e.name.endsWith('.md')) out.push(rel)
    }
  }
  if (fs.existsSync(path.join(root, 'docs'))) walk('docs')
  return out.sort()
}

module.exports = { load, check, scan, docFiles }
