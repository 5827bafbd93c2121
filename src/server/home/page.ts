/**
 * What `GET /` answers: the home page's HTML for a browser, a JSON index of the
 * fake's links for everything else. Both are built per request from the origin
 * the client used, so the links and the CLI lines name the address it reached.
 * The page holds no key and no data: its script reads those from the control
 * plane (/__admin), /__home/keys and /__home/pets once loaded, and the reference from
 * /__home/openapi.json (the document of /v1/openapi.json, read without leaving
 * a line in the request journal).
 */
declare const PETSTORE_VERSION: string;

const VERSION = typeof PETSTORE_VERSION === "string" ? PETSTORE_VERSION : "0.0.0-dev";
export const HOME_PREFIX = "/__home/";

/** What the page's script is told, as JSON in the page. */
interface HomeConfig {
  version: string;
  baseUrl: string;
  openApiUrl: string;
  adminUrl: string;
  petsUrl: string;
  keysUrl: string;
}

/** `{rel: absolute URL}`: where everything of the fake is. */
function linksOf(origin: string): Record<string, string> {
  return {
    self: `${origin}/`,
    api: `${origin}/v1`,
    pets: `${origin}/v1/pets`,
    openapi: `${origin}/v1/openapi.json`,
    adminHealth: `${origin}/__admin/health`,
    adminReset: `${origin}/__admin/reset`,
    adminRequests: `${origin}/__admin/requests`,
    adminClock: `${origin}/__admin/clock`,
    adminFaults: `${origin}/__admin/faults`,
    adminKeys: `${origin}/__admin/keys`,
    adminOpenapi: `${origin}/__admin/openapi.json`,
  };
}

export function indexJson(origin: string): string {
  const index = {
    name: "petstore serve",
    description:
      "A local fake of the Pet Store adoption service. The API is under /v1 and needs a key; " +
      "the control plane is under /__admin; open this URL in a browser for the home page.",
    version: VERSION,
    baseUrl: `${origin}/v1`,
    links: linksOf(origin),
  };
  return JSON.stringify(index, null, 2) + "\n";
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** JSON that cannot end the <script> element it sits in, nor open a comment. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
}

/** The same quoting as `serve --print-env` (exportLines): single quotes keep everything literal. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, "'\\''")}'`;
}

const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0f766e"/>' +
      '<g fill="#fff"><circle cx="10" cy="12" r="3"/><circle cx="16" cy="9" r="3"/><circle cx="22" cy="12" r="3"/>' +
      '<ellipse cx="16" cy="20" rx="6" ry="5"/></g></svg>',
  );

/** The page's Content-Security-Policy: everything from this origin, nothing from anywhere else. */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

export function pageHtml(origin: string): string {
  const baseUrl = `${origin}/v1`;
  const host = origin.replace(/^https?:\/\//, "");
  const config: HomeConfig = {
    version: VERSION,
    baseUrl,
    openApiUrl: `${origin}${HOME_PREFIX}openapi.json`,
    adminUrl: `${origin}/__admin`,
    petsUrl: `${origin}${HOME_PREFIX}pets`,
    keysUrl: `${origin}${HOME_PREFIX}keys`,
  };
  const lines = `export PETSTORE_BASE_URL=${shellQuote(baseUrl)}\nexport PETSTORE_API_KEY='<your key>'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>petstore serve · ${escapeHtml(host)}</title>
<link rel="icon" href="${ICON}">
<link rel="stylesheet" href="${HOME_PREFIX}swagger-ui.css">
<link rel="stylesheet" href="${HOME_PREFIX}home.css">
<script type="application/json" id="home-config">${scriptJson(config)}</script>
<script src="${HOME_PREFIX}home.js" defer></script>
<script src="${HOME_PREFIX}swagger-ui-bundle.js" defer></script>
</head>
<body>
<header class="topbar">
  <div class="brand"><img src="${ICON}" alt="" width="28" height="28"><span class="name">petstore serve</span><span class="tag">local fake</span><span class="version">v${escapeHtml(VERSION)}</span></div>
  <div class="health" id="health" data-state="loading"><span class="dot"></span><span class="text">connecting…</span></div>
</header>
<main>
  <div class="notice" id="admin-notice" hidden></div>
  <section class="card connect" aria-labelledby="connect-title">
    <div class="card-head"><h2 id="connect-title">Point the CLI at this fake</h2></div>
    <p class="base">Base URL <code id="base-url">${escapeHtml(baseUrl)}</code></p>
    <div class="shell"><pre id="cli-lines">${escapeHtml(lines)}</pre><button type="button" class="copy" data-copy="cli-lines">Copy</button></div>
    <p class="hint">Put one of the keys below in place of <code>&lt;your key&gt;</code> (each has a Copy button: on a local fake they are no secret from you). <code>petstore serve --print-env</code> prints both lines with the first key.</p>
  </section>
  <div class="columns">
    <section class="card" aria-labelledby="keys-title">
      <div class="card-head"><h2 id="keys-title">Keys</h2><span class="meta" id="keys-meta"></span></div>
      <table class="data" id="keys"><thead><tr><th>Key</th><th>Plan</th><th class="num">Limit</th><th class="num">Remaining</th><th>Resets</th></tr></thead><tbody></tbody></table>
      <p class="hint">Limit, remaining and reset are those of the window that binds first (the minute or the day), as the <code>X-RateLimit-*</code> headers give them.</p>
    </section>
    <section class="card" aria-labelledby="faults-title">
      <div class="card-head"><h2 id="faults-title">Faults</h2><span class="meta" id="faults-meta"></span></div>
      <form id="faults" class="faults" novalidate>
        <label><span>Latency min <span class="unit">ms</span></span><input name="latencyMin" type="number" min="0" step="1" inputmode="numeric"></label>
        <label><span>Latency max <span class="unit">ms</span></span><input name="latencyMax" type="number" min="0" step="1" inputmode="numeric"></label>
        <label><span>Fail rate <span class="unit">0 to 1</span></span><input name="failRate" type="number" min="0" max="1" step="0.01" inputmode="decimal"></label>
        <label><span>Fail mode</span><select name="failMode"><option value="503">503 fault_injected</option><option value="reset">reset before processing</option><option value="reset-after">reset after processing</option></select></label>
        <div class="actions"><button type="submit" class="primary">Apply</button><button type="button" id="faults-off">Turn off</button><span class="status" id="faults-status" role="status"></span></div>
      </form>
    </section>
  </div>
  <div class="columns">
    <section class="card" aria-labelledby="pets-title">
      <div class="card-head"><h2 id="pets-title">Pets</h2><span class="meta" id="pets-meta"></span></div>
      <div class="filters" id="pet-filters" role="group" aria-label="Filter by status">
        <button type="button" data-status="" aria-pressed="true">All</button><button type="button" data-status="available" aria-pressed="false">Available</button><button type="button" data-status="pending" aria-pressed="false">Pending</button><button type="button" data-status="sold" aria-pressed="false">Sold</button>
      </div>
      <div class="scroll"><table class="data" id="pets"><thead><tr><th class="num">ID</th><th>Name</th><th class="num">Category</th><th>Status</th></tr></thead><tbody></tbody></table></div>
    </section>
    <section class="card" aria-labelledby="requests-title">
      <div class="card-head"><h2 id="requests-title">Requests</h2><span class="live" id="requests-live">live</span><span class="meta" id="requests-meta"></span></div>
      <div class="scroll"><table class="data" id="requests"><thead><tr><th>Time</th><th>Request</th><th class="num">Status</th><th class="num">ms</th><th>Plan</th></tr></thead><tbody></tbody></table></div>
    </section>
  </div>
  <section class="card reference" aria-labelledby="reference-title">
    <div class="card-head"><h2 id="reference-title">API reference</h2><a class="meta" href="/v1/openapi.json">openapi.json</a></div>
    <div id="reference"><p class="empty">Loading the reference…</p></div>
  </section>
</main>
<footer>Served by <code>petstore serve</code>: every file of this page comes from this fake, nothing from the internet.</footer>
</body>
</html>
`;
}
