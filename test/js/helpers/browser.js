'use strict'
// Headless Chromium for the viewer tests and bench/viewer-open.js: Debian's
// chromium driven by puppeteer-core, a fresh profile directory per launch,
// nothing reaching the network.
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { waitUntil } = require('./procs')

const CHROMIUM = process.env.CPROF_CHROMIUM || '/usr/bin/chromium'
const ARTIFACTS = path.join(__dirname, '..', '..', 'artifacts')

function haveChromium () {
  return fs.existsSync(CHROMIUM)
}

async function launch () {
  const puppeteer = require('puppeteer-core')
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cprof-chromium-'))
  // npm run test:asan preloads the ASan runtime into node and its children:
  // not into the browser, which is none of ours to check.
  const env = { ...process.env }
  for (const k of ['LD_PRELOAD', 'ASAN_OPTIONS', 'LSAN_OPTIONS', 'UBSAN_OPTIONS']) delete env[k]
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir,
    env,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'],
    protocolTimeout: 120000
  })
  const close = browser.close.bind(browser)
  browser.close = async () => {
    try { await close() } finally { fs.rmSync(userDataDir, { recursive: true, force: true }) }
  }
  return browser
}

// A page that records console errors, failed CSP checks and every request
// that is not the page itself.
async function openPage (browser, url, { width = 1400, height = 1000 } = {}) {
  const page = await browser.newPage()
  await page.setViewport({ width, height })
  const problems = []
  const requests = []
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()) })
  page.on('pageerror', (e) => problems.push(String(e && e.message)))
  page.on('request', (r) => requests.push(r.url()))
  await page.goto(url, { waitUntil: 'load', timeout: 120000 })
  await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 })
  return { page, problems, requests }
}

// The viewer's page states (a range, a label filter) are a new hash and then
// a reload (time.js). The hash change is itself a navigation, so waiting for
// "a navigation" can end before the reload, on the old document (CI's run 45
// failed so). Mark the old document, act, then poll for a ready document
// without the mark; evaluations failing while the reload is in flight are
// part of the wait.
async function reloadBy (page, action, timeoutMs = 60000) {
  await page.evaluate(() => { window.cprofTestStale = true })
  await action()
  const fresh = () => !window.cprofTestStale && document.body && document.body.dataset.ready === '1'
  if (!(await waitUntil(() => page.evaluate(fresh).catch(() => false), timeoutMs))) {
    throw new Error(`the page was not rebuilt within ${timeoutMs} ms of the action`)
  }
}

async function screenshot (page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  const file = path.join(ARTIFACTS, name)
  await page.screenshot({ path: file, fullPage: false })
  return file
}

module.exports = { CHROMIUM, ARTIFACTS, haveChromium, launch, openPage, reloadBy, screenshot }
