// A test MCP Apps host: renders one app-rendered elicitation with the official host bridge.
//
// Everything the released bridge has comes from `@modelcontextprotocol/ext-apps` 2.0.4
// (`AppBridge`, `PostMessageTransport`, the double-iframe sandbox proxy handshake,
// `ui/initialize`, size changes, host context, teardown). The elicitation messages are not in
// 2.0.4: they are added here as the draft specifies them, each marked with a comment
//   // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "<quote>"
// so they are easy to find and update when the draft settles. DRAFT_PIN below is the pin of
// typed_elicit._wire.draft.PIN (the proof checks they agree); docs/peers.md describes the host.
//
// Python (tests/apps/host_renderer.py) calls `window.typedElicitHost.elicit(job)` with the
// resource HTML, the resource's `_meta`, and the server's `elicitation/create` params, lets a
// person act inside the app, and awaits the returned promise for the host's verdict:
//   {outcome: "result", result: ElicitResult, trace}   the app answered and the host accepted it
//   {outcome: "fallback", reason, trace}               the host renders the native form instead
//
// This file is bundled for the browser by install.sh (esbuild) into dist/host.js.

import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { ElicitResultSchema } from "@modelcontextprotocol/core";
import { checkElicitResult } from "./check.js";

export const DRAFT_PIN =
  "SEP-3118 @ modelcontextprotocol/modelcontextprotocol 2f3669e5d21697db2744567d0d65b76aa54c8206; " +
  "ext-apps PR 733 (head unverified)";

const HOST_INFO = { name: "typed-elicit-test-host", version: "1.0.0" };
const ANSWER_TIMEOUT_MS = 120_000; // a person fills the form; the Python side bounds the whole run tighter
const STARTUP_TIMEOUT_MS = 15_000; // sandbox proxy + ui/initialize

function deferred() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Record the view's raw `ui/initialize` capabilities before the bridge parses them.
 *
 * ext-apps 2.0.4 parses `ui/initialize` params with a zod object that does not know
 * `appCapabilities.elicitation` and strips it, so `bridge.getAppCapabilities()` never shows it
 * (checked under node; the merged Inspector PR 2083 does the same workaround). Call after
 * `bridge.connect(transport)`, which installs the handler this wraps.
 */
function observeRawAppCapabilities(transport, record) {
  const inner = transport.onmessage?.bind(transport);
  transport.onmessage = (message, extra) => {
    if (message && message.method === "ui/initialize" && message.params) {
      record(message.params.appCapabilities);
    }
    inner?.(message, extra);
  };
}

function hostCapabilities(resourceMeta) {
  const csp = resourceMeta?.ui?.csp;
  return {
    openLinks: {},
    logging: {},
    // What the sandbox proxy applies: exactly the resource's declared CSP domains, nothing more.
    sandbox: { csp: csp ?? {}, permissions: {} },
    // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "This SEP adds an `elicitation` member to
    // both `McpUiAppCapabilities` and `HostCapabilities` ... A host declares
    // `hostCapabilities.elicitation` when it can forward the request to the bound app and
    // accept the standard response."
    elicitation: {},
  };
}

function hostContext() {
  return {
    theme: "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    locale: "en-GB",
    timeZone: "UTC",
    userAgent: "typed-elicit-test-host",
    platform: "web",
    deviceCapabilities: { touch: false, hover: true },
  };
}

/** Render one elicitation through the app named by its `_meta.ui.resourceUri`; see the file's head. */
async function elicit(job) {
  const trace = [];
  window.typedElicitHost.trace = trace; // readable while the run is pending (the test's diagnostics)
  const note = (event, detail = {}) => trace.push({ event, ...detail });
  const { resourceUri, html, resourceMeta, params, sandboxUrl } = job;
  const slot = document.getElementById("app-slot");
  document.getElementById("server-name").textContent = job.serverName ?? "the server";
  slot.replaceChildren();

  // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "The host MUST NOT route an elicitation to
  // an app merely because its bridge is currently active. The binding is scoped to the
  // originating server, elicitation request, resource URI, and app instance." One fresh app
  // instance per request, and the URI loaded is the one the request names.
  const named = params?._meta?.ui?.resourceUri;
  if (named !== resourceUri || typeof named !== "string" || !named.startsWith("ui://")) {
    return { outcome: "fallback", reason: `the request names ${named}, not the loaded ${resourceUri}`, trace };
  }

  const iframe = document.createElement("iframe");
  iframe.id = "app-frame";
  iframe.title = "App view";
  const width = slot.clientWidth || 560;
  iframe.style.width = "100%";
  iframe.style.height = "120px";
  iframe.src = sandboxUrl;
  slot.append(iframe);

  const bridge = new AppBridge(null, HOST_INFO, hostCapabilities(resourceMeta), {
    hostContext: hostContext(),
  });
  let rawAppCapabilities;
  const initialized = deferred();

  bridge.addEventListener("sandboxready", () => {
    note("sandbox-proxy-ready");
    bridge.sendSandboxResourceReady({
      html,
      sandbox: "allow-scripts allow-forms",
      csp: resourceMeta?.ui?.csp,
      permissions: resourceMeta?.ui?.permissions,
    });
  });
  bridge.addEventListener("initialized", () => {
    note("initialized", { appInfo: bridge.getAppVersion() });
    initialized.resolve();
  });
  bridge.addEventListener("sizechange", ({ width: w, height: h }) => {
    note("size-changed", { width: w, height: h });
    if (typeof h === "number" && h > 0) {
      iframe.style.height = `${Math.min(Math.ceil(h), 2000)}px`;
      window.typedElicitHost.frameHeight = iframe.style.height;
    }
  });
  bridge.addEventListener("requestteardown", () => note("request-teardown"));
  bridge.addEventListener("loggingmessage", (p) => note("log", { level: p.level }));
  // What a view may ask of its host, answered as a careful host would for an elicitation view.
  // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "The app MUST NOT directly retry the server
  // operation or bypass the host's response handling." So no tool calls from this view.
  bridge.oncalltool = async (p) => {
    note("tools/call", { name: p.name });
    return { content: [{ type: "text", text: "an elicitation view may not call tools" }], isError: true };
  };
  bridge.onopenlink = async (p) => {
    note("open-link", { url: p.url });
    return { isError: true };
  };
  bridge.onmessage = async () => {
    note("message");
    return { isError: true };
  };
  bridge.onupdatemodelcontext = async () => {
    note("update-model-context");
    return {};
  };
  bridge.onrequestdisplaymode = async (p) => {
    note("request-display-mode", { mode: p.mode });
    return { mode: "inline" };
  };

  const transport = new PostMessageTransport(iframe.contentWindow, iframe.contentWindow);
  try {
    await bridge.connect(transport);
    observeRawAppCapabilities(transport, (caps) => {
      rawAppCapabilities = caps;
      note("ui/initialize", { appCapabilities: caps });
    });
    await withTimeout(initialized.promise, STARTUP_TIMEOUT_MS, "the app's ui/initialize");
  } catch (error) {
    iframe.remove();
    // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "If an app resource cannot be loaded, the app
    // fails initialization, the app does not declare its bridge capability, or the host otherwise
    // cannot use the app, the host SHOULD render the same `requestedSchema` with its native form UI."
    return { outcome: "fallback", reason: `the app did not start: ${error.message}`, trace };
  }
  // The container is laid out by now: tell the view its size (ui/notifications/host-context-changed).
  bridge.setHostContext({ ...hostContext(), containerDimensions: { width: slot.clientWidth || width, maxHeight: 640 } });
  note("host-context-changed");

  // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "The host MUST NOT forward an elicitation
  // until both members have been negotiated for that app instance." (Read from the raw frame:
  // 2.0.4's getAppCapabilities() strips `elicitation`; see observeRawAppCapabilities.)
  if (!rawAppCapabilities || typeof rawAppCapabilities.elicitation !== "object") {
    await teardown(bridge, iframe, note);
    return { outcome: "fallback", reason: "the app did not declare appCapabilities.elicitation", trace };
  }

  let result;
  try {
    // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "An app that declares this capability MUST
    // handle standard form `elicitation/create` requests and return a standard `ElicitResult`."
    // The method and the server's params go to the app unchanged (`_meta` included); PR 733's
    // `AppBridge.requestElicitation(params)` sends exactly this, and 2.0.4 lacks it.
    note("elicitation/create");
    result = await bridge.request({ method: "elicitation/create", params }, ElicitResultSchema, {
      timeout: ANSWER_TIMEOUT_MS,
    });
  } catch (error) {
    await teardown(bridge, iframe, note);
    return { outcome: "fallback", reason: `the app did not answer: ${error.message}`, trace };
  }
  note("elicit-result", { action: result.action });

  // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "The host MUST treat the app as untrusted and
  // MUST validate accepted content against `requestedSchema` outside the app sandbox."
  const problems = checkElicitResult(result, params.requestedSchema);
  // follows ext-apps PR 733 / SEP-3118 @ 2f3669e5: "The host SHOULD tear down an app instance
  // created solely for an elicitation after acceptance, decline, cancellation, timeout, or
  // request cancellation."
  await teardown(bridge, iframe, note);
  if (problems.length > 0) {
    note("refused", { problems });
    return { outcome: "fallback", reason: `the app's answer does not fit the requested schema: ${problems.join("; ")}`, trace };
  }
  const answer = { action: result.action };
  if (result.action === "accept") answer.content = result.content ?? {};
  return { outcome: "result", result: answer, trace };
}

async function teardown(bridge, iframe, note) {
  try {
    await withTimeout(bridge.teardownResource({}), 5_000, "ui/resource-teardown");
    note("teardown-answered");
  } catch (error) {
    note("teardown-failed", { reason: error.message });
  }
  await bridge.close();
  iframe.remove();
  document.getElementById("app-slot").textContent = "The app view was closed.";
}

window.typedElicitHost = { elicit, checkElicitResult, DRAFT_PIN, frameHeight: null, trace: [] };
document.documentElement.dataset.hostReady = "true";
