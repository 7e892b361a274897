// Debian's Firefox ESR for the tests in this folder (firefox.py), through puppeteer-core over
// WebDriver BiDi (no geckodriver, no browser download). One command a line on stdin, one JSON
// answer a line on stdout: {"value": …} or {"error": "…"}. The first line says it is ready.
//
//   {"op": "open", "width": 390, "height": 844}   a new player: a fresh context and page
//   {"op": "goto", "url": "…"}, {"op": "reload"}
//   {"op": "click", "selector": "…"}              a real mouse click on the element's middle
//   {"op": "press", "key": "ArrowRight"}
//   {"op": "evaluate", "source": "async (a) => …", "args": [1]}   the function's (awaited) value
//   {"op": "offline", "on": true}                 the browser's own offline mode
//   {"op": "clipboard"}                           the clipboard's text
//   {"op": "errors"}                              uncaught errors and console errors since asked last
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr",
  headless: true,
  extraPrefsFirefox: {
    "intl.accept_languages": "en-US",
    // lets the test read the clipboard back (navigator.clipboard.readText) without Firefox's
    // "Paste" menu; the page's own writes still need the user's click, as for anyone
    "dom.events.testing.asyncClipboard": true,
  },
});

let context = null;
let page = null;
let errors = [];

const commands = {
  async open({ width, height }) {
    if (context) await context.close();
    context = await browser.createBrowserContext();
    page = await context.newPage();
    errors = [];
    page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(`console.error: ${message.text()}`);
    });
    await page.setViewport({ width, height });
    // a returning visitor (the guided tour would cover the board), and no Web Share: SHARE copies
    await page.evaluateOnNewDocument(() => {
      if (location.protocol !== "http:") return; // about:blank has no storage
      localStorage.setItem("magdagdon.tourSeen", "1");
      localStorage.setItem("magdagdon.nameAsked", "1"); // asked once already: no name dialog
      Object.defineProperty(navigator, "share", { value: undefined });
    });
    return null;
  },
  goto: async ({ url }) => void (await page.goto(url)),
  reload: async () => void (await page.reload()),
  click: async ({ selector }) => void (await page.click(selector)),
  press: async ({ key }) => void (await page.keyboard.press(key)),
  evaluate: ({ source, args }) => page.evaluate(`(${source})(...${JSON.stringify(args)})`),
  offline: async ({ on }) => void (await page.setOfflineMode(on)),
  clipboard: () => page.evaluate(() => navigator.clipboard.readText()),
  errors: () => errors.splice(0), // and forgets them
};

const say = (answer) => process.stdout.write(`${JSON.stringify(answer)}\n`);
say({ value: await browser.version() });
for await (const line of readline.createInterface({ input: process.stdin })) {
  const { op, ...args } = JSON.parse(line);
  try {
    const value = await commands[op](args);
    say({ value: value === undefined ? null : value });
  } catch (error) {
    say({ error: String(error && error.message ? error.message : error) });
  }
}
await browser.close();
